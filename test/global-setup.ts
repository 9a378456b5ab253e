// Builds dist/ once before the tests, with the same two steps as `npm run build` (compile,
// then bundle the CLI): CLI tests spawn the built binary, exactly as a user runs it.

import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  // For iterating on tests that do not spawn the CLI while dist/ is already built.
  if (process.env.FREEZEGATE_SKIP_BUILD === "1") return;
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const run = (args: string[]) =>
    execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  run([join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"]);
  run([join(root, "scripts/bundle.mjs")]);
}
