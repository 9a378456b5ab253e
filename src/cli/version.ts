// The package version, read once from package.json next to the built code.

import { readFileSync } from "node:fs";

let cached: string | undefined;

export function toolVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    cached = String(pkg.version);
  }
  return cached;
}
