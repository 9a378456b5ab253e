// `freezegate init vitest`: wire freezegate's Vitest recorder (integrations/vitest) into the
// configuration file Vitest uses: the runner, the reporter and istanbul coverage in its test
// options (src/runners/vitest/config-wiring.ts), after checking that what it needs is
// installed (src/runners/vitest/prerequisites.ts); then say what changed. The file is found as
// Vitest finds it (src/adapters/vitest-files.ts), or named with --config. The write is
// atomic; running the command again changes nothing.

import { basename, dirname, join, resolve } from "node:path";
import { fileExists, readTextFile } from "../../adapters/repo-files.js";
import {
  findVitestConfig,
  installedPackage,
  workspaceFileIn,
} from "../../adapters/vitest-files.js";
import { writeFileAtomic } from "../../adapters/write-file.js";
import { refusal } from "../../core/refusals/index.js";
import {
  ManualWiringNeeded,
  manualLines,
  newConfigText,
  RUNNER_MODULE,
  type VitestWiring,
  wireVitestConfig,
} from "../../runners/vitest/config-wiring.js";
import { checkPrerequisites } from "../../runners/vitest/prerequisites.js";
import type { CommandIo } from "../command.js";
import { toolNodeEngines } from "../version.js";
import type { InitPlace } from "./init.js";

/** A list in words: "a", "a and b", "a, b and c". */
function inWords(items: string[]): string {
  return items.length <= 1
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function initVitest(
  { dir, stop, show, dryRun }: InitPlace,
  config: string | undefined,
  io: CommandIo,
): number {
  let found: { path: string; name: string } | null;
  if (config !== undefined) {
    const path = resolve(dir, config);
    if (!fileExists(path)) {
      throw refusal("vitest-config-not-found", { config });
    }
    found = { path, name: basename(path) };
  } else {
    found = findVitestConfig(dir, stop);
  }

  // Read and plan the edit first: a configuration init cannot edit is the first thing to say.
  let wiring: VitestWiring | null = null;
  const label = found ? show(found.path) : "";
  if (found) {
    try {
      wiring = wireVitestConfig(
        readTextFile(found.path, "Vitest configuration"),
        found.name,
        label,
      );
    } catch (error) {
      if (error instanceof ManualWiringNeeded) {
        io.stdout.write(
          [
            `Add these options to ${label} by hand, merged with the test, reporters and coverage options it has:`,
            ...manualLines().map((line) => `  ${line}`),
            "",
          ].join("\n"),
        );
      }
      throw error;
    }
  }
  checkPrerequisites({
    vitest: installedPackage(dir, "vitest", show),
    istanbul: installedPackage(dir, "@vitest/coverage-istanbul", show),
    freezegate: installedPackage(dir, "freezegate", show),
    node: process.versions.node,
    toolEngines: toolNodeEngines(),
  });

  const out: string[] = [];
  if (!found) {
    const path = join(dir, "vitest.config.mjs");
    const text = newConfigText();
    if (!dryRun) writeFileAtomic(path, text);
    out.push(
      `${dryRun ? "would create" : "created"} ${show(path)} (Vitest found no configuration here):`,
    );
    for (const line of text.trimEnd().split("\n")) out.push(`  ${line}`);
  } else if (wiring?.kind === "already") {
    out.push(
      `${label} already records with freezegate (test.runner, its reporter, istanbul coverage); nothing changed`,
    );
  } else if (wiring?.kind === "edited") {
    if (!dryRun) writeFileAtomic(found.path, wiring.text);
    out.push(
      `${dryRun ? "would add" : "added"} ${inWords(wiring.added)} to the test options in ${label}:`,
    );
    for (const line of wiring.lines) out.push(`  ${label}:${line.number}: ${line.text}`);
  }
  if (wiring?.projects) {
    out.push(
      "",
      `${label} has test.projects: Vitest runs each project with its own test options, and only a project with the runner records (the reporter and coverage here serve them all):`,
      ...wiring.projects,
    );
  }
  const workspace = found ? workspaceFileIn(dirname(found.path)) : null;
  if (workspace !== null && !wiring?.projects) {
    out.push(
      "",
      `${show(join(dirname(found?.path ?? dir), workspace))} names Vitest 3 projects, each run with its own test options: add runner: "${RUNNER_MODULE}" to those of every project that should record.`,
    );
  }
  out.push(
    "",
    "Then npx vitest run records per-test coverage (.freezegate/vitest-coverage.jsonl) and applies",
    "freeze-ledger.json; add .freezegate/vitest-coverage*.jsonl, applied.json and samples.json to .gitignore.",
  );
  if (dryRun) out.push("(dry run: nothing was written)");
  io.stdout.write(`${out.join("\n")}\n`);
  return 0;
}
