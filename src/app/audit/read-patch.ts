// The patch to audit, as git or a user's diff gives it: its changed files and their added
// lines, and the commit it is measured against.

import { join } from "node:path";
import {
  type EarlyRange,
  patchFromRange,
  patchFromStaged,
  patchFromWorktree,
} from "../../adapters/git.js";
import { fileExists, isSymbolicLink, readFileBytes } from "../../adapters/repo-files.js";
import type { ChangedFile, Patch } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import { nonUtf8Path, type ParsedDiff, parseDiff } from "../../core/unified-diff.js";

export type PatchRequest =
  | { kind: "range"; base: string; head?: string; early?: EarlyRange }
  | { kind: "staged" }
  | { kind: "worktree" }
  | { kind: "diff"; label: string; text: string };

/** A patch; from a user's diff, also that diff as parsed (with its shown lines), for the checks. */
export type ReadPatch = Patch & { userDiff?: ParsedDiff };

export async function readPatch(root: string, request: PatchRequest): Promise<ReadPatch> {
  switch (request.kind) {
    case "range":
      return (
        (await request.early?.patch(root)) ??
        patchFromRange(root, request.base, request.head ?? "HEAD")
      );
    case "staged":
      return patchFromStaged(root);
    case "worktree":
      return patchFromWorktree(root);
    case "diff": {
      const userDiff = parseDiff(request.text, {
        source: diffSource(request.label),
        keepText: true,
      });
      // A path written unquoted in another encoding (git diff with core.quotePath=false).
      const bad = nonUtf8Path(userDiff.files);
      if (bad !== null) {
        throw refusal("diff-path-not-utf8", { where: diffLabel(request.label), path: bad });
      }
      // A copy (`git diff -C`) shows only its edits against the source; like git's own ranges
      // here (no -C), it counts as a new file, every line of it.
      return {
        source: { kind: "diff", file: request.label },
        files: userDiff.files.map((f) => (f.status === "copied" ? everyLineOf(root, f) : f)),
        userDiff,
      };
    }
  }
}

function diffSource(label: string): string {
  return label === "-" ? "stdin" : label;
}

export function diffLabel(label: string): string {
  return label === "-" ? "the diff on stdin" : `the diff ${label}`;
}

/** A file with every line on disk added (unchanged when it is no regular file here). */
function everyLineOf(root: string, file: ChangedFile): ChangedFile {
  const full = join(root, file.path);
  if (!fileExists(full) || isSymbolicLink(full)) return file;
  const lines = readFileBytes(full, `changed file ${file.path}`).toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return { ...file, addedLines: lines.map((_, i) => i + 1) };
}
