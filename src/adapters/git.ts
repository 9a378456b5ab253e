// The git adapter: runs git to turn a base ref, the index or the work tree into a Patch, and
// answers the small questions the CLI asks (repository root, HEAD, which paths on disk differ
// from HEAD). Every diff runs with pinned options and a neutral environment, so the user's or
// the machine's git config cannot change which lines count as changed. No shell ever reads a
// user's value as code: the one shell script (revParseThenDiff) takes them all as arguments.
//
// Each diff is read twice: as a -U0 patch (for line numbers) and as `--name-status -z` (whose
// NUL-separated names are unambiguous). The parser's file list must match git's own list
// exactly, or the run stops as a freezegate bug instead of auditing a misread patch.

import { isUtf8 } from "node:buffer";
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { type FreezegateError, InputError, InternalError } from "../core/errors.js";
import type { ChangedFile, Patch } from "../core/model.js";
import { nearestNames } from "../core/near-names.js";
import { refusal } from "../core/refusals/index.js";
import { GIT_PREFIXES, nonUtf8Path, parseUnifiedDiff } from "../core/unified-diff.js";
import { INPUT_LIMIT_BYTES, inputTooLarge } from "./repo-files.js";

// node:os and node:fs/promises take start-up time to load (docs/performance.md), and an audit
// of a commit range needs neither: what it uses of them is spelled out here, or loaded on first
// use.
const devNull = process.platform === "win32" ? "\\\\.\\nul" : "/dev/null";
const requireBuiltin = createRequire(import.meta.url);
const fsPromises = (): typeof import("node:fs/promises") => requireBuiltin("node:fs/promises");

/** os.tmpdir(), without loading node:os on POSIX (the same environment lookup). */
function tmpdir(): string {
  if (process.platform === "win32") {
    return (requireBuiltin("node:os") as typeof import("node:os")).tmpdir();
  }
  const { TMPDIR, TMP, TEMP } = process.env;
  const dir = TMPDIR || TMP || TEMP || "/tmp";
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}

/**
 * Config that would otherwise change `git diff` output, set back to git's defaults on every
 * call. Command-line `-c` wins over system, global, repository and GIT_CONFIG_* settings.
 */
export const PINNED_GIT_CONFIG: readonly string[] = [
  "core.quotePath=false",
  "diff.noprefix=false",
  "diff.mnemonicPrefix=false",
  "diff.relative=false",
  "diff.renames=true",
  "diff.suppressBlankEmpty=false",
  "diff.ignoreSubmodules=none",
  `diff.orderFile=${devNull}`,
  "color.ui=never",
  // The user's global gitattributes could mark sources `-diff` (binary) or give them a textconv
  // driver; the repository's own .gitattributes still apply, as they do in CI.
  `core.attributesFile=${devNull}`,
];

/**
 * Flags of every patch diff. -U0: hunks hold only changed lines. -M: renames (a moved file's
 * unchanged lines are not changes), but no -C: a copy then shows as a new file whose every line
 * counts, which is what an audit of new code wants. myers and the indent heuristic are git's
 * defaults, pinned because diff.algorithm / diff.indentHeuristic move hunks.
 */
export const PINNED_DIFF_FLAGS: readonly string[] = [
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "--submodule=short",
  "--ignore-submodules=none",
  "-M",
  "--no-relative",
  "--diff-algorithm=myers",
  "--indent-heuristic",
  "--inter-hunk-context=0",
];

// git's buffer_is_binary() looks for a NUL in the first 8000 bytes; files above
// core.bigFileThreshold (512 MiB by default) are always shown as binary.
const BINARY_SNIFF_BYTES = 8000;
const BIG_FILE_BYTES = 512 * 1024 * 1024;

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * The environment for git: the caller's (so GIT_DIR / GIT_INDEX_FILE set by a hook still
 * apply), minus the variables that rewrite diff output (GIT_DIFF_OPTS overrides -U;
 * GIT_EXTERNAL_DIFF), with C-locale messages (the error patterns below are English), literal
 * pathspecs and no optional index writes.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GIT_DIFF_OPTS;
  delete env.GIT_EXTERNAL_DIFF;
  delete env.LANGUAGE;
  return {
    ...env,
    LC_ALL: "C",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    // A replace ref could make a commit show another commit's tree or author.
    GIT_NO_REPLACE_OBJECTS: "1",
  };
}

/**
 * Run git with the pinned configuration (plus `extraConfig`, e.g. `git log` settings) and the
 * neutral environment; never throws on a non-zero exit (callers decide what it means).
 */
export function runGit(
  cwd: string,
  args: string[],
  input?: string,
  extraConfig: readonly string[] = [],
  { stdoutToFile = false } = {},
): Promise<GitResult> {
  const full = gitCommandLine(args, extraConfig);
  // A large output (a diff over hundreds of files) goes to a private temporary file when one
  // can be made: through a pipe, git would stop whenever the pipe is full and freezegate busy
  // reading the data, and finish only after it. The file is removed as soon as it is read.
  const file = stdoutToFile ? temporaryOutput() : null;
  const cleanup = () => removeTemporary(file);
  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn("git", full, {
      cwd,
      env: gitEnv(),
      stdio: ["pipe", file === null ? "pipe" : file.fd, "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLength = 0;
    child.stdout?.on("data", (b: Buffer) => {
      outLength += b.length;
      if (outLength > INPUT_LIMIT_BYTES) child.kill();
      else out.push(b);
    });
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? refusal("git-not-installed", undefined, { cause: error })
          : refusal("git-not-run", { why: error.message }, { cause: error }),
      );
    });
    child.on("close", (code) => {
      try {
        if (outLength > INPUT_LIMIT_BYTES) throw gitOutputTooLarge(args);
        resolve({
          code: code ?? 128,
          stdout: file === null ? Buffer.concat(out) : readOutputFile(file, args),
          stderr: Buffer.concat(err).toString("utf8"),
        });
      } catch (error) {
        reject(error);
      }
    });
    // A git that exits early (bad args) closes stdin; that is reported through `close`.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  }).finally(cleanup);
}

let temporaryCount = 0;

/**
 * A new file only this process can read, for one git command's output, or null when the
 * temporary directory will not have one (the output then comes through a pipe, as correct,
 * only slower).
 */
function temporaryOutput(): { path: string; fd: number } | null {
  for (;;) {
    const path = join(
      tmpdir(),
      `freezegate-git-${process.pid}-${Date.now().toString(36)}-${temporaryCount++}.out`,
    );
    try {
      return { path, fd: openSync(path, "wx", 0o600) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return null;
    }
  }
}

/**
 * A git command's output written to a file by temporaryOutput, bounded like every input: a
 * repository can make a diff as large as it likes.
 */
function readOutputFile(file: { path: string; fd: number }, args: readonly string[]): Buffer {
  const size = fstatSync(file.fd).size;
  if (size > INPUT_LIMIT_BYTES) throw gitOutputTooLarge(args, size);
  return readFileSync(file.path);
}

function gitOutputTooLarge(args: readonly string[], size: number | null = null): InputError {
  return inputTooLarge(
    `the output of git ${args[0]}`,
    size,
    "audit a smaller range (--base, --head): no patch a review can follow is that large",
  );
}

/** git's arguments with the pinned configuration (plus `extraConfig`) and no pager. */
function gitCommandLine(args: readonly string[], extraConfig: readonly string[] = []): string[] {
  const config = [...PINNED_GIT_CONFIG, ...extraConfig].flatMap((c) => ["-c", c]);
  return ["--no-pager", ...config, ...args];
}

/** Closes and deletes a file from temporaryOutput (null: there is none). */
function removeTemporary(file: { path: string; fd: number } | null): void {
  if (file === null) return;
  closeSync(file.fd);
  try {
    unlinkSync(file.path);
  } catch {
    // already gone: nothing to clean up
  }
}

/** The line of git's stderr worth quoting: the first fatal/error line, else the first line. */
function firstStderrLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const line = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? "(no message)";
  return line.replace(/^(fatal|error):\s*/, "");
}

/** Errors any git command can hit, with what to do about them. */
function gitFailure(args: string[], result: GitResult, cwd: string): FreezegateError {
  const line = firstStderrLine(result.stderr);
  if (/not a git repository/i.test(result.stderr)) {
    return refusal("not-a-repository", { dir: cwd });
  }
  if (/detected dubious ownership/i.test(result.stderr)) {
    return refusal("repository-not-safe", { dir: cwd });
  }
  return refusal("git-failed", { args, dir: cwd, line });
}

/** git's output, or the GitError for its failure. `config`: settings on top of the pinned ones. */
export async function gitOk(
  cwd: string,
  args: string[],
  input?: string,
  { stdoutToFile = false, config = [] as readonly string[] } = {},
): Promise<Buffer> {
  const result = await runGit(cwd, args, input, config, { stdoutToFile });
  if (result.code !== 0) throw gitFailure(args, result, cwd);
  return result.stdout;
}

/** Does git track `path` (repository-relative, or absolute inside the work tree)? */
export async function isTracked(root: string, path: string): Promise<boolean> {
  const result = await runGit(root, ["ls-files", "--error-unmatch", "--", path]);
  return result.code === 0;
}

/** The repository's git directory and its common directory (one in a plain clone), absolute. */
export async function gitDirectories(root: string): Promise<string[]> {
  const out = await gitOk(root, ["rev-parse", "--absolute-git-dir", "--git-common-dir"]);
  const dirs = out
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((d) => resolve(root, d));
  return [...new Set(dirs)];
}

/** NUL-separated output (`-z`) as its non-empty fields. */
export function splitNul(buffer: Buffer): string[] {
  return buffer
    .toString("utf8")
    .split("\0")
    .filter((s) => s !== "");
}

// ---------------------------------------------------------------------------------------------
// Repository questions.

/** The top of the work tree that contains `cwd`. */
export async function findRepoRoot(cwd: string): Promise<string> {
  let info: ReturnType<typeof statSync> | undefined;
  try {
    info = statSync(cwd, { throwIfNoEntry: false });
  } catch {
    info = undefined;
  }
  if (!info?.isDirectory()) {
    throw refusal("directory-not-found", { dir: cwd });
  }
  const args = ["rev-parse", "--show-toplevel"];
  const result = await runGit(cwd, args);
  const root = result.stdout.toString("utf8").trim();
  if (result.code !== 0 || root === "") {
    if (result.code !== 0 && !/must be run in a work tree/.test(result.stderr)) {
      throw gitFailure(args, result, cwd);
    }
    throw refusal("not-a-work-tree", { dir: cwd });
  }
  return root;
}

/**
 * Where git would most likely find the work tree's top: the nearest directory at or above
 * `cwd` holding a `.git` (a directory, or a file in worktrees and submodules). A guess to
 * start work on while rev-parse answers: whoever uses it compares it with git's answer
 * before trusting anything done with it. Null when the environment tells git where to look
 * (GIT_DIR, GIT_WORK_TREE) or nothing is found.
 */
export function guessRepoRoot(cwd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.GIT_DIR !== undefined || env.GIT_WORK_TREE !== undefined) return null;
  // git names the directory as the system resolves it: through symbolic links.
  let start: string;
  try {
    start = realpathSync.native(resolve(cwd));
  } catch {
    return null;
  }
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The commit HEAD points at. */
export async function readHeadCommit(root: string): Promise<string> {
  const head = await tryHeadCommit(root);
  if (head === null) {
    throw refusal("no-commits", undefined);
  }
  return head;
}

async function tryHeadCommit(root: string): Promise<string | null> {
  const args = ["rev-parse", "--verify", "-q", "HEAD^{commit}"];
  const result = await runGit(root, args);
  if (result.code === 1) return null;
  if (result.code !== 0) throw gitFailure(args, result, root);
  return result.stdout.toString("utf8").trim();
}

/** Is this a shallow clone (history cut off, e.g. actions/checkout's default depth 1)? */
export async function isShallowRepository(root: string): Promise<boolean> {
  const out = await gitOk(root, ["rev-parse", "--is-shallow-repository"]);
  return out.toString("utf8").trim() === "true";
}

/** Resolve a ref to a commit SHA, or null when the ref does not exist (or is no commit). */
export async function resolveCommit(root: string, ref: string): Promise<string | null> {
  // A leading "-" would be read as an option; git forbids such ref names anyway.
  if (ref === "" || ref.startsWith("-")) return null;
  const args = ["rev-parse", "--verify", "-q", "--end-of-options", `${ref}^{commit}`];
  const result = await runGit(root, args);
  if (result.code === 1) return null;
  if (result.code !== 0) throw gitFailure(args, result, root);
  return result.stdout.toString("utf8").trim();
}

/** A commit id in full (SHA-1 or SHA-256), which a remote can be asked for. */
const FULL_ID = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;
/** An abbreviated commit id, which no remote can be asked for. */
const SHORT_ID = /^[0-9a-f]{7,39}$/;

/**
 * The commit a revision expression counts from ("af5e688" of "af5e688^", "main" of
 * "main~3"), and how many generations back it goes at most; null when `ref` is a plain name.
 */
function revisionExpression(ref: string): { anchor: string; generations: number } | null {
  const at = ref.search(/[~^:]|@\{/);
  if (at < 0) return null;
  let generations = 0;
  // "^" or "^N" is one generation ("^0" and "^{type}" none), "~N" is N.
  for (const step of ref.slice(at).matchAll(/\^\{[^}]*\}|\^(\d*)|~(\d*)/g)) {
    if (step[0].startsWith("^{")) continue;
    generations += step[2] !== undefined ? Number(step[2] || "1") : step[1] === "0" ? 0 : 1;
  }
  return { anchor: ref.slice(0, at), generations };
}

/**
 * The fix for a missing base: a command that fetches it, as the kind of name allows (git
 * fetches a branch or a full commit id; never a short id or an expression such as
 * "af5e688^": for those, more history), or that the remote to fetch from is missing. In a
 * shallow clone the fetch also unshallows: the merge base is missing there otherwise.
 */
async function fetchAdvice(root: string, ref: string, shallow: boolean): Promise<string> {
  const remotes = (await gitOk(root, ["remote"]))
    .toString("utf8")
    .split("\n")
    .filter((r) => r !== "");
  const short = ref.replace(/^refs\/remotes\//, "");
  const inActions = "in GitHub Actions use actions/checkout with fetch-depth: 0";
  const fetchFirst = (how: string) => `fetch it first (${how}); ${inActions}`;
  const remote = remotes.includes("origin") ? "origin" : (remotes[0] ?? "origin");
  // Every command below needs a remote; a clone without one (a new project) adds it first.
  const addRemote =
    remotes.length === 0 ? `add the remote (\`git remote add ${remote} URL\`), then ` : "";
  const deepen = shallow ? "--unshallow " : "";
  const expression = revisionExpression(ref);
  if (expression !== null) {
    const { anchor, generations } = expression;
    if (anchor !== "" && (await resolveCommit(root, anchor)) === null) {
      const forAnchor = await fetchAdvice(root, anchor, shallow);
      return `'${anchor}', which it counts from, is not here either: ${forAnchor}`;
    }
    if (!shallow) {
      return `'${ref}' names no commit of the history, which this clone has whole: pass a commit that exists (\`git log\` lists them)`;
    }
    const more = generations > 0 ? `\`git fetch --deepen=${generations} ${remote}\`, or ` : "";
    return `this shallow clone's history stops before it: ${addRemote}fetch more history (${more}\`git fetch --unshallow ${remote}\` for all of it); ${inActions}`;
  }
  if (FULL_ID.test(short)) {
    return fetchFirst(`${addRemote}\`git fetch ${deepen}${remote} ${short}\``);
  }
  if (SHORT_ID.test(short)) {
    // Every branch, not only the ones the clone follows (a single-branch clone follows one).
    const everyBranch = `\`git fetch ${deepen}${remote} '+refs/heads/*:refs/remotes/${remote}/*'\``;
    return `a short commit id cannot be fetched: ${addRemote}fetch ${shallow ? "the whole history of every branch" : "every branch"} (${everyBranch}), or pass the full commit id (\`git fetch ${deepen}${remote} FULL_ID\` fetches it); ${inActions}`;
  }
  for (const name of remotes) {
    if (short.startsWith(`${name}/`)) {
      const branch = short.slice(name.length + 1);
      // With the destination spelled out: in a single-branch clone (actions/checkout, `git
      // clone --depth 1`), `git fetch origin main` would leave no origin/main behind.
      return fetchFirst(`\`git fetch ${deepen}${name} ${branch}:refs/remotes/${name}/${branch}\``);
    }
  }
  // `git fetch origin main` updates origin/main, not a local main: say which ref to pass then.
  const branchLike = /^[\w./-]+$/.test(short);
  // Without an origin, `git fetch origin ...` fails too, and "origin/main" would become
  // "origin/origin/main": name the missing remote (a new project has none yet).
  if (!remotes.includes("origin")) {
    const slash = short.startsWith("refs/") ? -1 : short.indexOf("/");
    const [missing, branch] =
      slash > 0 ? [short.slice(0, slash), short.slice(slash + 1)] : ["origin", short];
    const then = slash < 0 && branchLike ? ` and pass --base ${missing}/${branch}` : "";
    return `there is no remote "${missing}" in this clone: add it (\`git remote add ${missing} URL\`, then \`git fetch ${missing} ${branch}\`${then}), or pass a local branch that exists (\`git branch\` lists them)`;
  }
  return fetchFirst(
    branchLike
      ? `\`git fetch ${deepen}origin ${ref}:refs/remotes/origin/${ref}\`, then pass --base origin/${ref}`
      : `\`git fetch ${deepen}origin ${ref}\``,
  );
}

/**
 * For a missing ref that is a name (not a commit id or an expression): the refs that exist
 * nearest it (local and remote-tracking branches, tags), a few, as "; nearest refs here: ...",
 * or "" when there are none.
 */
async function nearestRefs(root: string, ref: string): Promise<string> {
  if (revisionExpression(ref) !== null || /^[0-9a-f]{7,64}$/.test(ref)) return "";
  const listed = await runGit(root, [
    "for-each-ref",
    "--format=%(refname:short)%00%(symref)",
    "refs/heads",
    "refs/remotes",
    "refs/tags",
  ]);
  if (listed.code !== 0) return "";
  const names = listed.stdout
    .toString("utf8")
    .split("\n")
    .map((line) => line.split("\0"))
    // origin/HEAD and other symbolic refs only repeat the branch they point at.
    .filter(([name, symref]) => name !== undefined && name !== "" && symref === "")
    .map(([name]) => name as string);
  const near = nearestNames(ref.replace(/^refs\/(heads|remotes|tags)\//, ""), names, 5);
  return near.length === 0 ? "" : `; nearest refs here: ${near.join(", ")}`;
}

// ---------------------------------------------------------------------------------------------
// Patches.

/**
 * The changes on `head` since it forked from `base`: `git diff $(git merge-base base head) head`,
 * the meaning of `base...head`. Never `base..head`, which would also count (reverted) every
 * change made on `base` since the fork.
 */
export async function patchFromRange(root: string, base: string, head = "HEAD"): Promise<Patch> {
  const headRev = `${head}^{commit}`;
  if (!base.startsWith("-") && !head.startsWith("-")) {
    // The common case: merge-base and `git diff base...head` (the same diff, the merge base
    // found by git itself) run at once, so the diff does not wait for this process to get
    // round to starting it. The diff is trusted only when merge-base found a merge base and
    // the diff used it (with several, git says which one it took; it is the first, as for
    // merge-base, but anything unexpected is answered the slow way). A ref spelled with ".."
    // in it (`:/fix...`) could split the range elsewhere: those take the slow way too.
    const together = !base.includes("..") && !head.includes("..");
    const quickRun = runGit(root, ["merge-base", "--end-of-options", base, head]);
    const diffRun = together
      ? runGit(root, patchArgs([`${base}...${headRev}`], true), undefined, [], {
          stdoutToFile: true,
        })
      : null;
    diffRun?.catch(() => {}); // awaited below only when merge-base succeeded
    const quick = await quickRun;
    refuseAmbiguous(quick.stderr);
    const sha = quick.code === 0 ? quick.stdout.toString("utf8").trim() : "";
    if (/^[0-9a-f]{40,64}$/.test(sha)) {
      const diff = diffRun === null ? null : await diffRun;
      const files =
        diff !== null &&
        diff.code === 0 &&
        (diff.stderr === "" || diff.stderr.includes(`using ${sha}`))
          ? await filesFromPatch(root, diff.stdout, [sha, headRev], true)
          : await diffFiles(root, [sha, headRev], { fullIndex: true });
      return { source: { kind: "range", base, head, mergeBase: sha }, files };
    }
  }
  // Only when merge-base fails are the refs looked at one by one, to say why.
  const mergeBase = await diagnoseRange(root, base, head);
  const files = await diffFiles(root, [mergeBase, headRev], { fullIndex: true });
  return { source: { kind: "range", base, head, mergeBase }, files };
}

/**
 * A range's git work, started before the repository root is known: one `git rev-parse`
 * names the work tree's top and the range's merge bases, and `git diff base...head` runs
 * beside it, both from `cwd` (the diff's paths are the root's whatever the directory). This
 * saves findRepoRoot's own process (docs/performance.md). Anything unexpected (an
 * unknown ref, a shallow clone, no merge base, several the diff does not name) answers null:
 * findRepoRoot and patchFromRange then do the work again and say precisely what is wrong.
 */
export interface EarlyRange {
  /** The work tree's top as git names it, or null. */
  root: Promise<string | null>;
  /** The patch (root: what `root` gave), or null. */
  patch(root: string): Promise<Patch | null>;
}

export function startRange(
  cwd: string,
  base: string,
  head = "HEAD",
  { oneProcess = process.platform !== "win32" } = {},
): EarlyRange | null {
  // As in patchFromRange: options never, and a ref spelled with ".." could split elsewhere.
  if (base.startsWith("-") || head.startsWith("-") || base.includes("..") || head.includes("..")) {
    return null;
  }
  const headRev = `${head}^{commit}`;
  const range = `${base}...${headRev}`;
  let parsed: Promise<{ root: string; mergeBases: string[] } | null>;
  let diffRun: Promise<GitResult>;
  if (oneProcess) {
    ({ parsed, diffRun } = revParseThenDiff(cwd, range, patchArgs([range], true)));
  } else {
    parsed = runGit(cwd, ["rev-parse", "--show-toplevel", range]).then(
      (result) => (result.code === 0 ? parseTopAndBases(result.stdout.toString("utf8")) : null),
      () => null,
    );
    diffRun = runGit(cwd, patchArgs([range], true), undefined, [], { stdoutToFile: true });
  }
  diffRun.catch(() => {}); // its error is answered in patch()
  return {
    root: parsed.then((p) => p?.root ?? null),
    async patch(root) {
      const p = await parsed;
      if (p === null || p.mergeBases.length === 0) {
        // The diff is not used, but waited for: its temporary file goes with it, and the
        // process never ends (as an answered audit does at once) with git still running.
        await diffRun.catch(() => null);
        return null;
      }
      const diff = await diffRun.catch(() => null);
      if (diff === null || diff.code !== 0) return null;
      // With several merge bases git says which one the diff used.
      const sha =
        p.mergeBases.length === 1 && diff.stderr === ""
          ? p.mergeBases[0]
          : p.mergeBases.find((b) => diff.stderr.includes(`using ${b}`));
      if (sha === undefined) return null;
      const files = await filesFromPatch(root, diff.stdout, [sha, headRev], true);
      return { source: { kind: "range", base, head, mergeBase: sha }, files };
    },
  };
}

/**
 * The shell script behind revParseThenDiff. Its arguments: the range, then the diff's whole
 * git command line. The shell only runs them (never reads them as code). rev-parse's output
 * and a closing marker go to stdout, which the shell then hands over: the diff writes to fd 3
 * (a temporary file or a pipe) and its messages to fd 4, so stdout ends when rev-parse has
 * answered, long before the diff is done.
 */
const REV_PARSE_THEN_DIFF = `git --no-pager rev-parse --show-toplevel "$1" || exit 1
echo freezegate-rev-parse-ok
shift
exec git "$@" >&3 2>&4 3>&- 4>&-`;
const REV_PARSE_OK = "freezegate-rev-parse-ok\n";

/**
 * startRange's two git commands from one process. Starting a process blocks Node's main
 * thread (a fork of the whole process; docs/performance.md); a shell that runs rev-parse and
 * then becomes the diff costs that once. POSIX only (/bin/sh).
 */
function revParseThenDiff(
  cwd: string,
  range: string,
  diffArgs: string[],
): {
  parsed: Promise<{ root: string; mergeBases: string[] } | null>;
  diffRun: Promise<GitResult>;
} {
  const file = temporaryOutput();
  const cleanup = () => removeTemporary(file);
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(
      "/bin/sh",
      ["-c", REV_PARSE_THEN_DIFF, "freezegate", range, ...gitCommandLine(diffArgs)],
      { cwd, env: gitEnv(), stdio: ["ignore", "pipe", "ignore", file?.fd ?? "pipe", "pipe"] },
    );
  } catch (error) {
    cleanup();
    const failed = Promise.reject(error);
    failed.catch(() => {});
    return { parsed: Promise.resolve(null), diffRun: failed };
  }
  const [, revParseOut, , diffOut, diffErr] = child.stdio as (NodeJS.ReadableStream | null)[];
  const collect = (stream: NodeJS.ReadableStream | null | undefined) => {
    const chunks: Buffer[] = [];
    stream?.on("data", (b: Buffer) => chunks.push(b));
    return chunks;
  };
  const topChunks = collect(revParseOut);
  const outChunks: Buffer[] = [];
  let outLength = 0;
  diffOut?.on("data", (b: Buffer) => {
    outLength += b.length;
    if (outLength > INPUT_LIMIT_BYTES) child.kill();
    else outChunks.push(b);
  });
  const errChunks = collect(diffErr);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
  exited.catch(() => {});
  const parsed = new Promise<{ root: string; mergeBases: string[] } | null>((resolve) => {
    const done = () => {
      const text = Buffer.concat(topChunks).toString("utf8");
      resolve(
        text.endsWith(REV_PARSE_OK) ? parseTopAndBases(text.slice(0, -REV_PARSE_OK.length)) : null,
      );
    };
    if (revParseOut) revParseOut.on("end", done);
    else resolve(null);
    exited.catch(() => resolve(null));
  });
  const diffRun = exited
    .then((code) => {
      if (outLength > INPUT_LIMIT_BYTES) throw gitOutputTooLarge(diffArgs);
      return {
        code: code ?? 128,
        stdout: file === null ? Buffer.concat(outChunks) : readOutputFile(file, diffArgs),
        stderr: Buffer.concat(errChunks).toString("utf8"),
      };
    })
    .finally(cleanup);
  return { parsed, diffRun };
}

/**
 * `git rev-parse --show-toplevel A...B` output: the top (which may hold any character but
 * ends before the object ids), both ends, then each merge base with a "^". Null if the shape
 * is anything else.
 */
export function parseTopAndBases(text: string): { root: string; mergeBases: string[] } | null {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const OBJECT = /^\^?[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
  let first = lines.length;
  while (first > 0 && OBJECT.test(lines[first - 1] as string)) first--;
  const ids = lines.slice(first);
  const ends = ids.filter((id) => !id.startsWith("^"));
  const root = lines.slice(0, first).join("\n");
  if (root === "" || ends.length !== 2 || ids.slice(0, 2).some((id) => id.startsWith("^"))) {
    return null;
  }
  return { root, mergeBases: ids.slice(2).map((id) => id.slice(1)) };
}

/**
 * git warns, and goes on, when a name is both a branch and a tag (or a remote): it takes the
 * tag. An audit of the wrong range passes as easily as one of the right range, so refuse.
 */
function refuseAmbiguous(stderr: string): void {
  const m = /refname '(.*)' is ambiguous/.exec(stderr);
  if (m) {
    throw refusal("ref-ambiguous", { ref: m[1] as string });
  }
}

/** Why `ref` does not resolve to a commit, when the reason is in its spelling or its type. */
async function notACommit(
  root: string,
  ref: string,
  flag: string,
): Promise<FreezegateError | null> {
  if (ref.startsWith("-")) {
    return refusal("ref-starts-with-dash", { flag, ref });
  }
  if (ref.includes("..")) {
    return refusal("ref-is-range", { flag, ref, withHead: false });
  }
  const args = ["rev-parse", "--verify", "-q", "--end-of-options", ref];
  const result = await runGit(root, args);
  if (result.code !== 0) return null;
  // A full object id passes rev-parse --verify whether or not the object is here (a
  // fetch-depth 1 clone and the action's base sha): missing, it is a fetch problem.
  const typeOf = await runGit(root, ["cat-file", "-t", result.stdout.toString("utf8").trim()]);
  if (typeOf.code !== 0) return null;
  const type = typeOf.stdout.toString("utf8").trim();
  return refusal("ref-not-a-commit", { flag, ref, type });
}

/** Find the merge base the slow way, turning every way it can fail into a precise error. */
async function diagnoseRange(root: string, base: string, head: string): Promise<string> {
  const [baseSha, headSha] = await Promise.all([
    resolveCommit(root, base),
    resolveCommit(root, head),
  ]);
  if (baseSha === null) {
    const spelling = await notACommit(root, base, "--base");
    if (spelling) throw spelling;
    const shallow = await isShallowRepository(root);
    throw refusal("base-not-found", {
      base,
      shallow,
      nearest: await nearestRefs(root, base),
      fix: await fetchAdvice(root, base, shallow),
    });
  }
  if (headSha === null) {
    const spelling = await notACommit(root, head, "--head");
    if (spelling) throw spelling;
    throw refusal("head-not-found", { head });
  }
  return findMergeBase(root, base, head, baseSha, headSha);
}

async function findMergeBase(
  root: string,
  base: string,
  head: string,
  baseSha: string,
  headSha: string,
): Promise<string> {
  const args = ["merge-base", baseSha, headSha];
  const result = await runGit(root, args);
  const sha = result.stdout.toString("utf8").trim();
  if (result.code === 0 && sha !== "") return sha;
  if (result.code !== 1) throw gitFailure(args, result, root);
  if (await isShallowRepository(root)) {
    throw refusal("shallow-no-merge-base", { base, head });
  }
  throw refusal("unrelated-histories", { base, head });
}

/** What is staged: the index against HEAD (against nothing before the first commit). */
export async function patchFromStaged(root: string): Promise<Patch> {
  const unmerged = splitNul(await gitOk(root, ["ls-files", "-u", "-z"]))
    .map((entry) => entry.slice(entry.indexOf("\t") + 1))
    .filter((p, i, all) => all.indexOf(p) === i);
  if (unmerged.length > 0) {
    throw refusal("index-has-conflicts", { paths: unmerged });
  }
  // Full blob ids: the audit compares them with the files on disk (unstaged edits).
  return {
    source: { kind: "staged" },
    files: await diffFiles(root, ["--cached"], { fullIndex: true }),
  };
}

/**
 * The work tree against HEAD: staged and unstaged edits, plus untracked files that are not
 * ignored, each counted as a new file with all its lines. Someone auditing their work tree
 * expects the module they just created (and have not `git add`ed yet) to count; leaving it out
 * would hide exactly the newest code.
 */
export async function patchFromWorktree(root: string): Promise<Patch> {
  const head = (await tryHeadCommit(root)) ?? (await emptyTree(root));
  const [tracked, untracked] = await Promise.all([diffFiles(root, [head]), untrackedFiles(root)]);
  const seen = new Set(tracked.map((f) => f.path));
  const clash = untracked.find((f) => seen.has(f.path));
  if (clash) {
    // `git rm --cached`: HEAD has the file, the index does not, the disk does. git's diff then
    // says "deleted" and ls-files "untracked", so which lines changed is nobody's answer.
    throw refusal("removed-from-index-on-disk", { path: clash.path });
  }
  const files = [...tracked, ...untracked].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  return { source: { kind: "worktree" }, files };
}

/** `git diff -U0` with the pinned options between `revs`. */
function patchArgs(revs: readonly string[], fullIndex: boolean): string[] {
  // --full-index (ranges): the new side's blob ids let the audit check the files on disk
  // against the patch without another git call.
  return [
    "diff",
    "-U0",
    ...(fullIndex ? ["--full-index"] : []),
    ...PINNED_DIFF_FLAGS,
    ...revs,
    "--",
  ];
}

/** Diff with the pinned options, parsed, and checked against git's own list of names. */
async function diffFiles(
  root: string,
  revs: string[],
  { fullIndex = false } = {},
): Promise<ChangedFile[]> {
  const patch = await gitOk(root, patchArgs(revs, fullIndex), undefined, { stdoutToFile: true });
  return filesFromPatch(root, patch, revs, fullIndex);
}

/** git's patch output between `revs`, parsed, and checked against its list of names. */
async function filesFromPatch(
  root: string,
  patch: Buffer,
  revs: string[],
  fullIndex: boolean,
): Promise<ChangedFile[]> {
  let files: ChangedFile[];
  try {
    files = parseUnifiedDiff(patch.toString("utf8"), {
      prefixes: GIT_PREFIXES,
      source: "git diff output",
    });
  } catch (error) {
    // git's own pinned output must always parse; if it does not, the bug is ours.
    if (!(error instanceof InputError)) throw error;
    throw new InternalError(`could not read git's diff output: ${error.message}`, {
      fix: "report this as a freezegate bug, with the file names involved",
      cause: error,
    });
  }
  if (!isUtf8(patch)) {
    // Content may be any encoding (line counting does not care), but a path that is not UTF-8
    // cannot be matched against coverage data reliably.
    const bad = nonUtf8Path(files);
    if (bad !== null) {
      throw refusal("path-not-utf8", { path: bad });
    }
  }
  // The cross-check costs a second git process: spend it where parsing could go wrong
  // (quoted or spaced paths, renames, copies, binary and submodule changes).
  if (needsNameCheck(patch)) {
    const namesArgs = ["diff", "--name-status", "-z", ...PINNED_DIFF_FLAGS, ...revs, "--"];
    checkAgainstNameStatus(files, await gitOk(root, namesArgs));
  }
  return withTextOfBinaryLooking(root, files, revs, fullIndex);
}

/**
 * git shows a file as binary when its content holds a NUL, but also when the repository's
 * .gitattributes say so (`-diff`, `binary`, a driver with `binary = true`), which some
 * projects set for generated or vendored Python that coverage still measures. Files on disk
 * without a NUL where git sniffs for one are diffed again with --text to get their lines.
 */
async function withTextOfBinaryLooking(
  root: string,
  files: ChangedFile[],
  revs: string[],
  fullIndex: boolean,
): Promise<ChangedFile[]> {
  const binary = files.filter((f) => f.binary && f.status !== "deleted" && !f.submodule);
  if (binary.length === 0) return files;
  const looksText = await Promise.all(
    binary.map((f) =>
      fsPromises()
        .lstat(join(root, f.path))
        .then(
          async (info) =>
            info.isFile() &&
            info.size <= BIG_FILE_BYTES &&
            !(await scanFile(join(root, f.path))).binary,
          () => false,
        ),
    ),
  );
  const paths = binary.filter((_, i) => looksText[i]).map((f) => f.path);
  if (paths.length === 0) return files;
  const args = patchArgs(revs, fullIndex).slice(0, -1);
  const text = await gitOk(root, [...args, "--text", "--", ...paths], undefined, {
    stdoutToFile: true,
  });
  const again = new Map(
    parseUnifiedDiff(text.toString("utf8"), {
      prefixes: GIT_PREFIXES,
      source: "git diff --text output",
    }).map((f) => [f.path, f]),
  );
  return files.map((f) => {
    const redone = f.binary ? again.get(f.path) : undefined;
    return redone === undefined || redone.binary ? f : redone;
  });
}

const PLAIN_HEADER = /^diff --git a\/([^\s"\\]+) b\/\1$/;
const TRICKY_LINE =
  /^(rename |copy |Binary files |GIT binary patch|Subproject commit|\+Subproject commit|-Subproject commit)/;

/** Does this diff hold anything beyond plain same-path text changes of simply named files? */
export function needsNameCheck(patch: Buffer): boolean {
  const text = patch.toString("utf8");
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    if (line.startsWith("diff --git ") && !PLAIN_HEADER.test(line)) return true;
    if (TRICKY_LINE.test(line) && !line.startsWith("+++") && !line.startsWith("---")) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

const STATUS_LETTER: Record<ChangedFile["status"], string> = {
  added: "A",
  deleted: "D",
  modified: "M",
  "mode-changed": "M",
  renamed: "R",
  copied: "C",
  "type-changed": "T",
};

/**
 * The parsed patch must name exactly the files `git diff --name-status -z` names (same diff
 * options); otherwise InternalError. Exported for its unit test.
 */
export function checkAgainstNameStatus(files: ChangedFile[], nameStatus: Buffer): void {
  const tokens = nameStatus.toString("utf8").split("\0");
  if (tokens.at(-1) === "") tokens.pop();
  const fromGit: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const letter = (tokens[i] ?? "").charAt(0);
    if (letter === "R" || letter === "C") {
      fromGit.push(`${letter} ${tokens[i + 1]} -> ${tokens[i + 2]}`);
      i += 3;
    } else {
      fromGit.push(`${letter} ${tokens[i + 1]}`);
      i += 2;
    }
  }
  const fromPatch = files.map((f) =>
    f.oldPath === null
      ? `${STATUS_LETTER[f.status]} ${f.path}`
      : `${STATUS_LETTER[f.status]} ${f.oldPath} -> ${f.path}`,
  );
  const a = [...fromGit].sort();
  const b = [...fromPatch].sort();
  const differ = a.length !== b.length || a.some((x, i) => x !== b[i]);
  if (differ) {
    const missing = a.filter((x) => !b.includes(x));
    const extra = b.filter((x) => !a.includes(x));
    throw new InternalError(
      `the diff parser disagrees with git --name-status: git lists [${missing.join("; ")}], the parser has [${extra.join("; ")}]`,
      { fix: "report this as a freezegate bug, with the file names involved" },
    );
  }
}

async function emptyTree(root: string): Promise<string> {
  // Computed rather than hard-coded: SHA-256 repositories have a different empty tree.
  return (await gitOk(root, ["hash-object", "-t", "tree", devNull])).toString("utf8").trim();
}

/** Untracked, non-ignored files as new files with every line added. */
async function untrackedFiles(root: string): Promise<ChangedFile[]> {
  const paths = splitNul(await gitOk(root, ["ls-files", "--others", "--exclude-standard", "-z"]));
  if (paths.length === 0) return [];
  // `diff` set in .gitattributes forces text, as git diff would for a tracked file. `-diff`
  // (or `binary`) is not followed: as for tracked files (withTextOfBinaryLooking), a file
  // without a NUL has lines to audit, and coverage may well have measured them.
  const attrOut = (
    await gitOk(root, ["check-attr", "-z", "--stdin", "diff"], `${paths.join("\0")}\0`)
  )
    .toString("utf8")
    .split("\0");
  const forceText = new Set<string>();
  // Output records are "<path> NUL diff NUL <value> NUL".
  for (let i = 0; i + 2 < attrOut.length; i += 3) {
    if (attrOut[i + 2] === "set") forceText.add(attrOut[i] as string);
  }
  return Promise.all(
    paths.map(async (path): Promise<ChangedFile> => {
      const entry = { oldPath: null, status: "added" as const, submodule: false, binary: false };
      // ls-files shows a nested repository (not yet a submodule) as "dir/".
      if (path.endsWith("/")) {
        return { ...entry, path: path.slice(0, -1), submodule: true, addedLines: [] };
      }
      const full = join(root, path);
      const info = await fsPromises().lstat(full);
      if (info.isSymbolicLink()) {
        // git shows a new symlink as one line: its target.
        return { ...entry, path, addedLines: [1] };
      }
      if (info.size > BIG_FILE_BYTES) {
        return { ...entry, path, binary: true, addedLines: [] };
      }
      const { lines, binary } = await scanFile(full);
      if (binary && !forceText.has(path)) return { ...entry, path, binary: true, addedLines: [] };
      return { ...entry, path, addedLines: Array.from({ length: lines }, (_, i) => i + 1) };
    }),
  );
}

/** Count lines the way git does (a last line without "\n" counts) and sniff for binary. */
async function scanFile(path: string): Promise<{ lines: number; binary: boolean }> {
  const handle = await fsPromises().open(path, "r");
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let lines = 0;
    let offset = 0;
    let last = 0x0a;
    let binary = false;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      const view = chunk.subarray(0, bytesRead);
      if (offset < BINARY_SNIFF_BYTES) {
        const nul = view.indexOf(0);
        if (nul !== -1 && offset + nul < BINARY_SNIFF_BYTES) binary = true;
      }
      for (let i = view.indexOf(0x0a); i !== -1; i = view.indexOf(0x0a, i + 1)) lines++;
      last = view[bytesRead - 1] ?? last;
      offset += bytesRead;
    }
    if (offset > 0 && last !== 0x0a) lines++;
    return { lines, binary };
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Work tree versus HEAD.

/**
 * The blob id git would give each work-tree file (checkout filters such as core.autocrlf
 * applied, as `git add` would), by path. One process for all of them.
 */
export async function workTreeBlobIds(
  root: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  if (paths.length === 0) return new Map();
  // `--stdin-paths` reads one path a line, drops a trailing CR and unquotes a line that
  // starts with '"': so every path goes quoted (a name may hold any of these).
  const input = paths.map((p) => `${cQuote(p)}\n`).join("");
  const out = await gitOk(root, ["hash-object", "--stdin-paths"], input);
  const ids = out.toString("utf8").split("\n");
  return new Map(paths.map((p, i) => [p, ids[i] ?? ""]));
}

/** A path in git's C-style quotes: `"`, `\\` and control characters escaped (octal). */
export function cQuote(path: string): string {
  let out = '"';
  for (const ch of path) {
    const code = ch.charCodeAt(0);
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * Which of `paths` differ between the work tree and HEAD: modified, deleted, or present on disk
 * while HEAD has no such path, as git's index sees them (the gates use it; the
 * audit compares blob ids instead, see workTreeBlobIds).
 */
export async function changedPathsDirty(root: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  await readHeadCommit(root);
  const args = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-relative"];
  const changed = new Set(
    splitNul(await gitOk(root, [...args, "--ignore-submodules=none", "HEAD", "--"])),
  );
  const unique = [...new Set(paths)];
  const onDiskOnly: string[] = [];
  const rest = unique.filter((p) => !changed.has(p));
  const exists = await Promise.all(
    rest.map((p) =>
      fsPromises()
        .lstat(join(root, p))
        .then(
          () => true,
          () => false,
        ),
    ),
  );
  const present = rest.filter((_, i) => exists[i]);
  if (present.length > 0) {
    const inHead = new Set<string>();
    // Chunked so a long path list cannot exceed the OS argument limit.
    for (let i = 0; i < present.length; i += 200) {
      const chunk = present.slice(i, i + 200);
      const out = await gitOk(root, ["ls-tree", "-z", "--name-only", "HEAD", "--", ...chunk]);
      for (const p of splitNul(out)) inHead.add(p);
    }
    for (const p of present) if (!inHead.has(p)) onDiskOnly.push(p);
  }
  const dirty = new Set([...unique.filter((p) => changed.has(p)), ...onDiskOnly]);
  return unique.filter((p) => dirty.has(p));
}
