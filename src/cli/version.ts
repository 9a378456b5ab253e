// The package version, read once from the package.json that ships with the code: the nearest
// one above this module (the built CLI lives at different depths: dist/cli, dist/bin/chunks).

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

interface ToolPackage {
  name?: string;
  version?: string;
  engines?: { node?: string };
}

let cached: ToolPackage | undefined;

function toolPackage(): ToolPackage {
  if (cached === undefined) {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (;;) {
      const candidate = join(dir, "package.json");
      if (existsSync(candidate)) {
        const pkg = JSON.parse(readFileSync(candidate, "utf8")) as ToolPackage;
        if (pkg.name === "freezegate" && typeof pkg.version === "string") {
          cached = pkg;
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

export function toolVersion(): string {
  return toolPackage().version as string;
}

/** The Node.js versions freezegate supports (package.json `engines.node`), if it says. */
export function toolNodeEngines(): string | null {
  const node = toolPackage().engines?.node;
  return typeof node === "string" ? node : null;
}
