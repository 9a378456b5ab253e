// Debian's Python 3.11 standard library as a corpus of real modules for the statement finder's
// tests: skipped with a loud warning locally when it is missing, a failure under CI=true.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const STDLIB = "/usr/lib/python3.11";

function pythonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "site-packages" && entry.name !== "dist-packages") {
        out.push(...pythonFiles(path));
      }
    } else if (entry.isFile() && entry.name.endsWith(".py")) out.push(path);
  }
  return out.sort();
}

/** Every .py file of the standard library (no site-packages), sorted; null when it is missing. */
export function stdlibModules(what: string): string[] | null {
  if (existsSync(STDLIB)) return pythonFiles(STDLIB);
  if (process.env.CI === "true") throw new Error(`${STDLIB} is missing (Debian's python3)`);
  console.warn(`\n!!! SKIPPING ${what} on the standard library: no ${STDLIB}\n`);
  return null;
}
