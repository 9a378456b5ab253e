// Golden files: a report must render byte for byte as the committed file. Set
// UPDATE_GOLDEN=1 to rewrite them after an intended change (then review the diff).

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { REPO_ROOT } from "./cli.js";

export function expectGolden(name: string, actual: string): void {
  const path = join(REPO_ROOT, "test/golden", name);
  if (process.env.UPDATE_GOLDEN === "1" && process.env.CI !== "true") {
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path))
    throw new Error(`golden file ${name} is missing; run with UPDATE_GOLDEN=1`);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

/** Replace run-specific values (temp dirs, commit SHAs, timestamps) with stable tokens. */
export function normalize(text: string, replacements: Record<string, string>): string {
  let out = text;
  for (const [from, to] of Object.entries(replacements)) out = out.split(from).join(to);
  return out
    .replace(/"mergeBase": "[0-9a-f]{40}"/g, '"mergeBase": "<sha>"')
    .replace(/merge base [0-9a-f]{12}/g, "merge base <sha>")
    .replace(/"recordedAt": "[^"]*"/g, '"recordedAt": "<time>"')
    .replace(/"version": "\d+\.\d+\.\d+[^"]*"/g, '"version": "<version>"');
}
