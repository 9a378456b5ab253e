// Builds dist/ once before the tests, with the same two steps as `npm run build` (compile,
// then bundle the CLI): CLI tests spawn the built binary, exactly as a user runs it.
//
// The tests start Node.js many times (the CLI, real Vitest runs). Node's compile cache, in a
// directory of this run's own, keeps their compiled code from one start to the next; the
// build runs before it is set, exactly as `npm run build`. The binary does not turn the cache
// on for users: Node's default place for it is the shared temporary directory, where another
// local user could leave compiled code for it to run.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export default function setup(): () => void {
  // FREEZEGATE_SKIP_BUILD=1: for iterating on tests while dist/ is already built.
  if (process.env.FREEZEGATE_SKIP_BUILD !== "1") build();
  const cache = mkdtempSync(join(tmpdir(), "freezegate-test-compile-cache-"));
  process.env.NODE_COMPILE_CACHE = cache;
  return () => rmSync(cache, { recursive: true, force: true });
}

function build(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const run = (args: string[]) =>
    execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  run([join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"]);
  run([join(root, "scripts/bundle.mjs")]);
}
