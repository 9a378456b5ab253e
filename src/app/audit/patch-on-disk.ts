// Does the patch describe the files on disk, the ones coverage measured? A measured file the
// diff calls binary, a file missing from disk, unstaged edits under --staged, a user's diff of
// other lines, a range over files edited since: each is refused.

import { join } from "node:path";
import { readHeadCommit, resolveCommit, workTreeBlobIds } from "../../adapters/git.js";
import { fileExists, isSymbolicLink, readFileBytes } from "../../adapters/repo-files.js";
import type { FreezegateError } from "../../core/errors.js";
import { gitBlobId } from "../../core/git-blob.js";
import { sample } from "../../core/listing.js";
import type { ChangedFile } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import type { SkippedFile } from "../../core/shadow-audit.js";
import { describePathPrefixes, type ParsedDiff } from "../../core/unified-diff.js";
import type { ClassifiedFiles } from "./changed-files.js";
import { diffLabel, type PatchRequest, type ReadPatch } from "./read-patch.js";

/** A user's diff naming audited files the work tree does not have: how it read the paths. */
function missingFromDiff(
  root: string,
  label: string,
  { prefixes }: ParsedDiff,
  missing: readonly ChangedFile[],
): FreezegateError {
  return refusal("diff-names-missing-files", {
    source: diffLabel(label),
    count: missing.length,
    root,
    example: missing[0]?.path ?? "",
    prefixes: describePathPrefixes(prefixes),
  });
}

/**
 * Which of `files` differ on disk from the blob the diff gives them (hashed with checkout
 * filters applied, as `git add` would). A file the diff gives no blob id (git always does for
 * changed content) cannot be shown to match, so it counts as differing.
 */
async function differFromBlobs(root: string, files: readonly ChangedFile[]): Promise<string[]> {
  if (files.length === 0) return [];
  const ids = await workTreeBlobIds(
    root,
    files.filter((f) => f.newBlob !== undefined).map((f) => f.path),
  );
  return files.filter((f) => ids.get(f.path) !== f.newBlob).map((f) => f.path);
}

/**
 * A user's diff carries no promise that it describes the files on disk (the ones coverage
 * measured): it may be of an earlier commit, or made in a subdirectory with --relative and so
 * name another file. For each audited file: it must exist; every line the hunks show on the
 * new side must be that line on disk (added lines exactly, context lines without their
 * whitespace: `diff -u -w` may print the old side's); a new file must be all of the file; and
 * the new side's blob id, when the diff has one, must be the file's.
 */
async function checkUserDiff(
  root: string,
  diffFile: string,
  { newText, newBlobs }: ParsedDiff,
  audited: readonly ChangedFile[],
  sources: ReadonlyMap<string, Buffer>,
): Promise<void> {
  const label = diffLabel(diffFile);
  const bare = (l: string) => (l.endsWith("\r") ? l.slice(0, -1) : l);
  const squeezed = (l: string) => l.replace(/\s+/g, "");
  const quote = (t: string | undefined) =>
    t === undefined ? "past its end" : JSON.stringify(bare(t).slice(0, 60));
  for (const file of audited) {
    const lines = (sources.get(file.path) as Buffer).toString("utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    const added = new Set(file.addedLines);
    for (const [n, text] of newText?.get(file.path) ?? []) {
      const onDisk = lines[n - 1];
      const same =
        onDisk !== undefined &&
        (added.has(n) ? bare(onDisk) === bare(text) : squeezed(onDisk) === squeezed(text));
      if (!same) {
        throw refusal("diff-not-of-disk", {
          source: label,
          path: file.path,
          difference: `its line ${n} is ${quote(text)} in the diff but ${quote(onDisk)} on disk`,
        });
      }
    }
    if (file.status === "added" && file.addedLines.length !== lines.length) {
      throw refusal("diff-not-of-disk", {
        source: label,
        path: file.path,
        difference: `it adds the file with ${file.addedLines.length} line(s), the file on disk has ${lines.length}`,
      });
    }
  }
  const withBlob = audited.filter((f) => newBlobs?.has(f.path));
  const ids = await workTreeBlobIds(
    root,
    withBlob.map((f) => f.path),
  );
  for (const file of withBlob) {
    const blob = newBlobs?.get(file.path) as string;
    const id = ids.get(file.path) ?? "";
    if (!id.startsWith(blob)) {
      throw refusal("diff-not-of-disk", {
        source: label,
        path: file.path,
        difference: `its new side is blob ${blob}, the file on disk is ${id.slice(0, Math.max(blob.length, 7))}`,
      });
    }
  }
}

export interface PatchOnDisk {
  /** The changed files the audit judges. */
  audited: ChangedFile[];
  skipped: SkippedFile[];
  /** The bytes of each audited file, as read for the checks. */
  sources: Map<string, Buffer>;
}

/**
 * Which changed files the audit judges, and the refusals when the patch does not describe
 * the files on disk (the ones coverage measured): a measured file the diff calls binary, a
 * file missing from disk, unstaged edits under --staged, a user's diff of other lines, a range
 * over files edited since. The audit stops at the error; doctor reports it as a check.
 */
export async function checkPatchOnDisk(
  root: string,
  request: PatchRequest,
  patch: ReadPatch,
  /** The patch's files as classifyChangedFiles sorts them. */
  classified: ClassifiedFiles,
  toData: ReadonlyMap<string, string>,
): Promise<PatchOnDisk> {
  // A symbolic link's "line" is its target's name, and coverage records the file it points
  // at under that file's own path: a link is no source file. Never read through it (a
  // link to a file outside the repository would put that file in the report).
  const links = new Set(
    classified.audited.filter((f) => isSymbolicLink(join(root, f.path))).map((f) => f.path),
  );
  const audited = classified.audited.filter((f) => !links.has(f.path));
  const skipped = [
    ...classified.skipped,
    ...[...links].map((path) => ({ path, reason: "not-source" as const })),
  ];

  // A file the data measured has lines; if the diff calls it binary, they are missing.
  const binaryMeasured = skipped.filter((f) => f.reason === "binary" && toData.has(f.path));
  if (binaryMeasured.length > 0) {
    throw refusal("measured-file-binary-in-diff", {
      files: sample(binaryMeasured.map((f) => f.path)),
    });
  }
  const missing = audited.filter((f) => !fileExists(join(root, f.path)));
  const absent = missing[0];
  if (absent) {
    if (request.kind === "diff" && patch.userDiff) {
      throw missingFromDiff(root, request.label, patch.userDiff, missing);
    }
    throw refusal("changed-file-not-on-disk", { path: absent.path });
  }
  if (patch.source.kind === "staged") {
    // The staged diff's blob ids are the index's: a file on disk that hashes otherwise has
    // unstaged edits (whatever assume-unchanged says).
    const unstaged = await differFromBlobs(root, audited);
    if (unstaged.length > 0) {
      throw refusal("unstaged-edits", { files: sample(unstaged) });
    }
  }

  // The diff describes the patch's commit; coverage measured the files on disk. They must
  // be the same bytes: compared against the diff's blob ids, asking git only on a mismatch.
  const sources = new Map(
    audited.map((f) => [f.path, readFileBytes(join(root, f.path), `changed file ${f.path}`)]),
  );
  if (request.kind === "diff" && patch.userDiff) {
    await checkUserDiff(root, request.label, patch.userDiff, audited, sources);
  }
  if (patch.source.kind === "range") {
    const source = patch.source;
    const suspects = audited.filter(
      (f) =>
        f.newBlob === undefined ||
        gitBlobId(sources.get(f.path) as Buffer, f.newBlob.length) !== f.newBlob,
    );
    // With checkout filters (core.autocrlf, eol) the bytes on disk never hash to the blob:
    // git hashes the suspects as `git add` would. Not `git diff`, which believes the index's
    // skip-worktree and assume-unchanged flags over the bytes on disk.
    const dirty = await differFromBlobs(root, suspects);
    const headCheckedOut =
      dirty.length > 0 &&
      (source.head === "HEAD" ||
        (await resolveCommit(root, source.head)) === (await readHeadCommit(root)));
    if (dirty.length > 0) {
      throw refusal("changed-files-differ-from-head", {
        head: source.head,
        files: sample(dirty),
        headCheckedOut,
      });
    }
  }
  return { audited, skipped, sources };
}
