// The package version, read once from the package.json that ships with the code: the nearest
// one above this module (the built CLI lives at different depths: dist/cli, dist/bin/chunks).

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function toolVersion(): string {
  if (cached === undefined) {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
      const candidate = join(dir, "package.json");
      if (existsSync(candidate)) {
        const pkg = JSON.parse(readFileSync(candidate, "utf8")) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === "freezegate" && typeof pkg.version === "string") {
          cached = pkg.version;
          break;
        }
      }
      const parent = dirname(dir);
      if (parent === dir) throw new Error("freezegate's package.json was not found above its code");
      dir = parent;
    }
  }
  return cached;
}
