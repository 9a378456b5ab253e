// Writing reports and state files so that a reader never sees half of one: write a temporary
// file next to the target, then rename it over the target (atomic on POSIX file systems).

import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError } from "../core/errors.js";

export function writeFileAtomic(path: string, content: string): void {
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    writeFileSync(temp, content, { flag: "wx" });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new InputError(`cannot write ${path}: ${(error as Error).message}`, {
      fix: "check that the directory exists and is writable",
      cause: error,
    });
  }
}
