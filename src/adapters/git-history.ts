// The git reads of the ledger gates: file content at a revision, the files a patch changed,
// the repository's file list (for generator-lock globs), and who wrote each freeze entry.
// Same rules as src/adapters/git.ts: no shell, pinned config, a neutral environment, English
// messages; every git failure is a GitError saying what to do.
//
// Who wrote an entry is decided per commit, not by blame: for every commit in BASE..HEAD whose
// ledger differs from its parents', the ledger is parsed at the commit and at its parents, and
// each freeze whose exact value is in none of the parents is charged to that commit's author
// and committer. Blame would follow lines, and the serializer re-sorts entries; comparing
// parsed values cannot be fooled by formatting, and a commit whose ledger does not parse is
// charged with every entry (it could have written any of them).

import { resolve } from "node:path";
import { FreezegateError } from "../core/errors.js";
import {
  attributeFreezeChanges,
  type FreezeAuthors,
  type Identity,
  type LedgerAtCommit,
  type LedgerStep,
} from "../core/ledger-changes.js";
import type { Ledger } from "../core/ledger-model.js";
import { refusal } from "../core/refusals/index.js";
import {
  changedPathsDirty,
  gitOk as gitOkWith,
  isShallowRepository,
  patchFromRange,
  runGit,
  splitNul,
} from "./git.js";
import { readTextOrNull } from "./repo-files.js";

/** On top of git.ts's pinned config: settings that change `git log` output. */
const LOG_CONFIG = ["log.showSignature=false", "i18n.logOutputEncoding=UTF-8", "log.mailmap=false"];

/** A git command with the log settings above, its failure a GitError (as in git.ts). */
function gitOk(cwd: string, args: string[], input?: string): Promise<Buffer> {
  return gitOkWith(cwd, args, input, { config: LOG_CONFIG });
}

// ---------------------------------------------------------------------------------------------
// Objects at revisions.

export interface BlobSpec {
  /** A commit (sha or ref). */
  rev: string;
  /** Repository path, POSIX. */
  path: string;
}

interface GitObject {
  type: string;
  content: Buffer;
}

/** Objects by name (`rev:path` or an id) through one `git cat-file --batch`; null: missing. */
async function catFile(root: string, names: readonly string[]): Promise<(GitObject | null)[]> {
  if (names.length === 0) return [];
  for (const name of names) {
    // The batch protocol is line-based; a name with a line break would desynchronise it.
    if (/[\n\r]/.test(name)) {
      throw refusal("name-has-line-break", { name, what: "file" });
    }
  }
  const out = await gitOk(root, ["cat-file", "--batch"], `${names.join("\n")}\n`);
  const objects: (GitObject | null)[] = [];
  let at = 0;
  for (const _ of names) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) {
      throw refusal("git-unexpected-output", { what: "git cat-file --batch ended early" });
    }
    const header = out.subarray(at, eol).toString("utf8");
    at = eol + 1;
    if (/ (missing|ambiguous)$/.test(header)) {
      objects.push(null);
      continue;
    }
    const m = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (!m) {
      throw refusal("git-unexpected-output", {
        what: `unexpected git cat-file output "${header}"`,
      });
    }
    const size = Number(m[2]);
    objects.push({ type: m[1] as string, content: Buffer.from(out.subarray(at, at + size)) });
    at += size + 1;
  }
  return objects;
}

/**
 * The bytes of each `rev:path` (null when the path does not exist at that revision). A path
 * that is a directory (or submodule) at the revision is an error, not a missing file.
 */
export async function readBlobs(
  root: string,
  specs: readonly BlobSpec[],
): Promise<(Buffer | null)[]> {
  for (const s of specs) {
    if (s.rev === "" || s.rev.startsWith("-")) {
      throw refusal("not-a-revision", { rev: s.rev });
    }
  }
  const objects = await catFile(
    root,
    specs.map((s) => `${s.rev}:${s.path}`),
  );
  return objects.map((o, i) => {
    if (o === null) return null;
    if (o.type !== "blob") {
      const spec = specs[i] as BlobSpec;
      throw refusal("not-a-file-at-revision", { path: spec.path, type: o.type, rev: spec.rev });
    }
    return o.content;
  });
}

/** A file's bytes at a revision, or null when the path does not exist there. */
export async function fileAtRevision(
  root: string,
  rev: string,
  path: string,
): Promise<Buffer | null> {
  return (await readBlobs(root, [{ rev, path }]))[0] ?? null;
}

/**
 * A file at a revision as its tree holds it: its bytes and whether it is a symbolic link (the
 * bytes are then the link's target). Null when the path is no file there (missing, a
 * directory, a submodule, or under a directory that is a link).
 */
export async function treeFileAt(
  root: string,
  rev: string,
  path: string,
): Promise<{ link: boolean; bytes: Buffer } | null> {
  if (rev === "" || rev.startsWith("-")) {
    throw refusal("not-a-revision", { rev });
  }
  const [entry] = splitNul(await gitOk(root, ["ls-tree", "-z", rev, "--", path]));
  const m = entry === undefined ? null : /^(\d+) blob ([0-9a-f]{40,64})\t/.exec(entry);
  if (m === null) return null;
  const [object] = await catFile(root, [m[2] as string]);
  return object ? { link: m[1] === "120000", bytes: object.content } : null;
}

// ---------------------------------------------------------------------------------------------
// The patch's files, the repository's files.

export interface RangeFiles {
  mergeBase: string;
  /** Every path the patch touches: new paths, and the old paths of renames. */
  changed: Set<string>;
}

/** Which files changed in BASE...HEAD (the merge base to HEAD, as the audit reads it). */
export async function changedFilesInRange(
  root: string,
  base: string,
  head = "HEAD",
): Promise<RangeFiles> {
  const patch = await patchFromRange(root, base, head);
  if (patch.source.kind !== "range") {
    throw refusal("git-unexpected-output", { what: "git did not describe a range" });
  }
  const changed = new Set<string>();
  for (const f of patch.files) {
    changed.add(f.path);
    if (f.oldPath !== null) changed.add(f.oldPath);
  }
  return { mergeBase: patch.source.mergeBase, changed };
}

/** Files git tracks or would add (untracked, not ignored), POSIX paths, sorted. */
export async function listRepoFiles(root: string): Promise<string[]> {
  const out = await gitOk(root, [
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
    "--deduplicate",
  ]);
  return [...new Set(splitNul(out))].sort();
}

/** Which of `paths` differ between the work tree and HEAD (see git.ts). */
export function dirtyPaths(root: string, paths: readonly string[]): Promise<string[]> {
  return changedPathsDirty(root, paths);
}

// ---------------------------------------------------------------------------------------------
// Who wrote each freeze entry.

interface CommitInfo {
  sha: string;
  parents: string[];
  identities: Identity[];
}

/** Commits in mergeBase..head, newest first, with their parents, author and committer. */
export async function commitsInRange(
  root: string,
  mergeBase: string,
  head: string,
): Promise<CommitInfo[]> {
  const out = await gitOk(root, [
    "log",
    "-z",
    "--no-decorate",
    "--format=%H%x00%P%x00%an%x00%ae%x00%cn%x00%ce",
    `${mergeBase}..${head}`,
    "--",
  ]);
  if (out.length === 0) return [];
  const tokens = out.toString("utf8").split("\0");
  // -z ends every record with a NUL, so the text ends in one: drop the empty tail.
  if (tokens.length % 6 === 1 && tokens.at(-1) === "") tokens.pop();
  if (tokens.length % 6 !== 0) {
    throw refusal("git-unexpected-output", { what: "unexpected git log output (field count)" });
  }
  const commits: CommitInfo[] = [];
  for (let i = 0; i < tokens.length; i += 6) {
    const [sha, parents, an, ae, cn, ce] = tokens.slice(i, i + 6) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const identities: Identity[] = [{ name: an, email: ae }];
    if (cn !== an || ce !== ae) identities.push({ name: cn, email: ce });
    commits.push({ sha, parents: parents.split(" ").filter((p) => p !== ""), identities });
  }
  return commits;
}

/**
 * A commit of the range at the edge of a shallow clone (fetch-depth: 2 on a merge ref) shows
 * no parents: read as a root commit, its author would be charged with every freeze of its
 * ledger, and the commit that really added one (beyond the edge) never seen. Exit 2.
 */
async function refuseShallowEdge(root: string, commits: readonly CommitInfo[]): Promise<void> {
  if (!(await isShallowRepository(root))) return;
  const file = (await gitOkWith(root, ["rev-parse", "--git-path", "shallow"])).toString("utf8");
  const shallow = readTextOrNull(resolve(root, file.trim()));
  const edges = new Set(shallow === null ? [] : shallow.split(/\s+/));
  const edge = commits.find(
    (c) => c.parents.length === 0 && (edges.size === 0 || edges.has(c.sha)),
  );
  if (edge === undefined) return;
  throw refusal("shallow-edge-in-range", { commit: edge.sha });
}

export interface FreezeAuthorsRequest {
  mergeBase: string;
  head: string;
  /** The ledger's repository path. */
  ledgerPath: string;
  /** Parse a ledger's text (JSON decoding included); throws on anything unreadable. */
  parse: (text: string, label: string) => Ledger;
  /**
   * The work tree's uncommitted ledger over `head`'s, charged to whoever would commit it now
   * (`check --uncommitted`): one more step after the commits.
   */
  uncommitted?: LedgerStep;
}

/** Who added or changed each freeze entry in mergeBase..head (see the module comment). */
export async function freezeAuthors(
  root: string,
  req: FreezeAuthorsRequest,
): Promise<FreezeAuthors> {
  if (/[\n\r]/.test(req.ledgerPath)) {
    throw refusal("name-has-line-break", { name: req.ledgerPath, what: "ledger" });
  }
  const commits = await commitsInRange(root, req.mergeBase, req.head);
  const after = req.uncommitted === undefined ? [] : [req.uncommitted];
  if (commits.length === 0) return attributeFreezeChanges(after);
  await refuseShallowEdge(root, commits);
  const revs = [...new Set(commits.flatMap((c) => [c.sha, ...c.parents]))];
  // Blob ids first (cheap): only commits whose ledger differs from every parent's are read.
  const check = await gitOk(
    root,
    ["cat-file", "--batch-check"],
    `${revs.map((r) => `${r}:${req.ledgerPath}`).join("\n")}\n`,
  );
  const blobOf = new Map<string, string | null>();
  const lines = check.toString("utf8").split("\n");
  revs.forEach((rev, i) => {
    const m = /^([0-9a-f]{40,64}) blob \d+$/.exec(lines[i] ?? "");
    blobOf.set(rev, m ? (m[1] as string) : null);
  });
  const touching = commits.filter((c) => {
    const own = blobOf.get(c.sha) ?? null;
    return c.parents.length === 0 || c.parents.every((p) => (blobOf.get(p) ?? null) !== own);
  });
  const needed = [
    ...new Set(
      touching
        .flatMap((c) => [c.sha, ...c.parents])
        .map((r) => blobOf.get(r) ?? null)
        .filter((b): b is string => b !== null),
    ),
  ];
  const contents = await catFile(root, needed);
  const parsed = new Map<string, LedgerAtCommit>();
  needed.forEach((id, i) => {
    const bytes = contents[i];
    if (bytes?.type !== "blob") {
      parsed.set(id, "unreadable");
      return;
    }
    try {
      parsed.set(
        id,
        req.parse(bytes.content.toString("utf8"), `${req.ledgerPath} (blob ${id.slice(0, 12)})`),
      );
    } catch (error) {
      // A ledger that does not parse is evidence (charged to its commit); a bug is not.
      if (!(error instanceof FreezegateError)) throw error;
      parsed.set(id, "unreadable");
    }
  });
  const at = (rev: string): LedgerAtCommit => {
    const blob = blobOf.get(rev) ?? null;
    return blob === null ? null : (parsed.get(blob) ?? "unreadable");
  };
  const steps: LedgerStep[] = touching.map((c) => ({
    identities: c.identities,
    ledger: at(c.sha),
    parents: c.parents.map(at),
  }));
  return attributeFreezeChanges([...steps, ...after]);
}

/**
 * Who would author and commit a change now (git var: the user.name / user.email settings or
 * the GIT_AUTHOR_* / GIT_COMMITTER_* variables), to charge uncommitted ledger changes to.
 */
export async function committingIdentities(root: string): Promise<Identity[]> {
  const identities: Identity[] = [];
  for (const variable of ["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"]) {
    const result = await runGit(root, ["var", variable]);
    const m = /^(.*) <(.*)> \d+ [+-]\d{4}$/.exec(result.stdout.toString("utf8").trim());
    if (result.code !== 0 || m === null) {
      throw refusal("no-git-identity", undefined);
    }
    const who = { name: m[1] as string, email: m[2] as string };
    if (!identities.some((i) => i.name === who.name && i.email === who.email)) identities.push(who);
  }
  return identities;
}
