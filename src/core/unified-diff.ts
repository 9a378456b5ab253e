// Parses unified diffs into ChangedFile values: git's extended format (the git adapter's pinned
// output, or a user's `git diff`) and plain `diff -u` / `diff -ruN` output. Pure, so the git
// adapter and the CLI's `--diff FILE` share one parser and its tests need no repository.
//
// Decisions worth knowing:
// - Hunk bodies are walked with the counts from their `@@` header, never by guessing where a
//   hunk ends: inside a hunk `+++ x` is an added line "++ x", not a file header.
// - Paths come from the unambiguous lines first (`rename from/to`, `copy from/to`, `---`/`+++`,
//   which carry a whole path each). The `diff --git A B` header is only read when nothing else
//   names the file (mode-only changes, empty or binary new/deleted files); then A and B are the
//   same path under the two prefixes, so the header is split at the one space where that holds
//   (for git's a/ and b/ that is the middle). If no single split fits, the input is refused.
// - Path prefixes (a/ b/, none, mnemonic i/ w/, `diff -ru old/ new/`) are detected from pairs
//   of paths that must name the same file; see detectPathPrefixes.
// - A deleted and a re-added file of the same path is how git prints a type change (file to
//   symlink, file to submodule); the two are merged into one entry.
// - Malformed input throws InputError naming the line; an empty diff is [].

import type { ChangedFile, ChangeStatus, Patch } from "./model.js";
import { refusal } from "./refusals/index.js";

/** The strings in front of every old-side and new-side path ("a/" and "b/" for git). */
export interface PathPrefixes {
  readonly old: string;
  readonly new: string;
}

/** git's default prefixes, which the git adapter pins with --src-prefix/--dst-prefix. */
export const GIT_PREFIXES: PathPrefixes = { old: "a/", new: "b/" };

/**
 * How the prefixes were decided: passed by the caller, read from file headers that name the
 * same file on both sides, assumed from git's default because every path fits it (a diff of
 * only new or deleted files), or no prefix at all.
 */
export type PrefixBasis = "given" | "evidence" | "git-default" | "none";

export interface PathPrefixDetection extends PathPrefixes {
  basis: PrefixBasis;
  /** One path as written in the diff and the repository path it became, for messages. */
  sample: { raw: string; path: string } | null;
}

export interface ParseDiffOptions {
  /** Known prefixes (the git adapter passes GIT_PREFIXES); detected when absent. */
  prefixes?: PathPrefixes;
  /** Name of the input for error messages ("patch.diff", "stdin"); default "diff". */
  source?: string;
  /** Keep the new side's context and added lines' text (ParsedDiff.newText). */
  keepText?: boolean;
}

export interface ParsedDiff {
  files: ChangedFile[];
  prefixes: PathPrefixDetection;
  /**
   * With `keepText`: per file path, the new side's lines the hunks show (context and added,
   * CR kept), by line number. A user's diff is checked against the files on disk with them.
   */
  newText?: Map<string, Map<number, string>>;
  /** With `keepText`: per file path, the new side's blob id from its `index` line (maybe abbreviated). */
  newBlobs?: Map<string, string>;
}

/** Parse a unified diff; see ParseDiffOptions. Throws InputError on malformed input. */
export function parseUnifiedDiff(text: string, options: ParseDiffOptions = {}): ChangedFile[] {
  return parseDiff(text, options).files;
}

/**
 * The Patch for `--diff FILE` (`-` for stdin): `text` is the diff the CLI read; `file` names the
 * input in the Patch source and in error messages.
 */
export function patchFromDiffText(text: string, file: string): Patch {
  const source = file === "-" ? "stdin" : file;
  return { source: { kind: "diff", file }, files: parseUnifiedDiff(text, { source }) };
}

/**
 * Which path prefixes a user-supplied diff carries, so the CLI can say how it read the paths
 * (e.g. when none of them exist in the repository). Throws like parseUnifiedDiff.
 */
export function detectPathPrefixes(text: string, source = "diff"): PathPrefixDetection {
  return parseDiff(text, { source }).prefixes;
}

/** One sentence describing a detection, for messages and verbose output. */
export function describePathPrefixes(detection: PathPrefixDetection): string {
  const how =
    detection.basis === "given"
      ? "as configured"
      : detection.basis === "evidence"
        ? "as the file headers show"
        : detection.basis === "git-default"
          ? "assumed from git's default because every path fits it"
          : "no pair of headers showed a prefix";
  const what =
    detection.old === "" && detection.new === ""
      ? "paths carry no prefix (git diff --no-prefix or diff -u from the repository root)"
      : `paths carry the prefixes '${detection.old}' and '${detection.new}', which were stripped`;
  const sample = detection.sample
    ? ` ("${detection.sample.raw}" read as "${detection.sample.path}")`
    : "";
  return `${what} (${how})${sample}`;
}

/** Parse a diff and report the prefixes used. The other exports are views of this. */
export function parseDiff(text: string, options: ParseDiffOptions = {}): ParsedDiff {
  const source = options.source ?? "diff";
  const raws = lex(text, source, options.keepText === true);
  if (raws.length === 0) {
    if (text.includes("\x1b[")) {
      throw refusal("diff-has-colour", { source });
    }
    if (text.trim() !== "") {
      throw refusal("diff-not-unified", { source });
    }
    return { files: [], prefixes: { old: "", new: "", basis: "none", sample: null } };
  }
  const prefixes: PathPrefixDetection = options.prefixes
    ? { old: options.prefixes.old, new: options.prefixes.new, basis: "given", sample: null }
    : inferPrefixes(raws, source);
  const files = raws.map((raw) => resolveFile(raw, prefixes, source));
  const first = raws[0];
  const firstFile = files[0];
  if (first && firstFile) prefixes.sample = sampleOf(first, firstFile);
  const merged = mergeTypeChanges(files, raws, source);
  if (!options.keepText) return { files: merged, prefixes };
  const newText = new Map<string, Map<number, string>>();
  const newBlobs = new Map<string, string>();
  files.forEach((file, i) => {
    const lines = raws[i]?.newText;
    if (lines && lines.size > 0) newText.set(file.path, lines);
    const blob = raws[i]?.anyNewBlob;
    if (blob) newBlobs.set(file.path, blob);
  });
  return { files: merged, prefixes, newText, newBlobs };
}

// ---------------------------------------------------------------------------------------------
// Lexing: lines -> raw file records (paths still carry their prefixes).

const DEV_NULL = "/dev/null";

/**
 * The first changed path (new or old) that is not valid UTF-8, as decoded (its bad bytes
 * read as U+FFFD), or null.
 */
export function nonUtf8Path(files: readonly ChangedFile[]): string | null {
  for (const f of files) {
    for (const path of [f.path, f.oldPath]) if (path?.includes("\uFFFD")) return path;
  }
  return null;
}

interface RawPath {
  /** As written, prefix included; "/dev/null" for a missing side. */
  path: string;
  /** The plain-diff timestamp is the epoch, which GNU `diff -N` uses for a missing file. */
  epoch: boolean;
}

interface RawFile {
  line: number;
  format: "git" | "plain";
  /** Text after "diff --git " (git format only). */
  header: string | null;
  /** "X and Y" of a standalone "Binary files X and Y differ" line (plain `diff -r`). */
  binaryPair: string | null;
  minus: RawPath | null;
  plus: RawPath | null;
  renameFrom: string | null;
  renameTo: string | null;
  copyFrom: string | null;
  copyTo: string | null;
  oldMode: string | null;
  newMode: string | null;
  deletedMode: string | null;
  createdMode: string | null;
  indexMode: string | null;
  /** New side's blob id from the `index old..new` line when it is a full id (--full-index). */
  newBlob: string | null;
  /** The same, abbreviated or not (not all zeros). */
  anyNewBlob: string | null;
  binary: boolean;
  hunks: number;
  oldLines: number;
  newLines: number;
  added: number[];
  /** The new side's shown lines by number (only when the caller keeps text). */
  newText: Map<number, string> | null;
  /** A `--submodule=log` line ("Submodule libs/x abc..def:"): a gitlink, path without prefix. */
  gitlinkLog: { path: string; status: ChangeStatus } | null;
  /** Content lines that are `Subproject commit <sha>` (a gitlink without its mode lines). */
  subprojectLines: number;
  otherContentLines: number;
}

type State = "junk" | "header" | "expect-hunk" | "hunk" | "after-hunk";

interface Hunk {
  line: number;
  header: string;
  oldLeft: number;
  newLeft: number;
  next: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const SUBPROJECT = /^Subproject commit [0-9a-f]{7,64}(-dirty)?$/;
// `git diff --submodule=log` replaces a gitlink's diff section with one line.
const SUBMODULE_LOG = /^Submodule (.+) ([0-9a-f]{7,64})\.\.\.?([0-9a-f]{7,64})(?::| \(.+\))$/;

function newRaw(line: number, format: "git" | "plain", keepText = false): RawFile {
  return {
    line,
    format,
    header: null,
    binaryPair: null,
    minus: null,
    plus: null,
    renameFrom: null,
    renameTo: null,
    copyFrom: null,
    copyTo: null,
    oldMode: null,
    newMode: null,
    deletedMode: null,
    createdMode: null,
    indexMode: null,
    newBlob: null,
    anyNewBlob: null,
    binary: false,
    gitlinkLog: null,
    hunks: 0,
    oldLines: 0,
    newLines: 0,
    added: [],
    newText: keepText ? new Map() : null,
    subprojectLines: 0,
    otherContentLines: 0,
  };
}

function lex(text: string, source: string, keepText = false): RawFile[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const files: RawFile[] = [];
  let state: State = "junk";
  let file: RawFile | null = null;
  let hunk: Hunk | null = null;
  let lastNewEnd = 0;
  // A "\ No newline at end of file" marker is only valid right after a content line.
  let afterContent = false;
  const at = (n: number) => `${source} line ${n}`;
  const fail: (n: number, what: string) => never = (n, what) => {
    throw refusal("diff-malformed", { where: at(n), problem: what });
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const n = i + 1;
    // Header lines are read without a trailing CR so a diff saved with CRLF line ends still
    // parses; content lines keep theirs (git prints a CRLF file's lines with their "\r").
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;

    if (state === "hunk" && hunk && file) {
      const kind = raw === "" || raw === "\r" ? " " : raw[0];
      if (kind === " " || kind === "+" || kind === "-") {
        if (kind === " " && (hunk.oldLeft === 0 || hunk.newLeft === 0)) {
          fail(n, `the hunk "${hunk.header}" (line ${hunk.line}) has more lines than it declares`);
        }
        if (kind === "+" && hunk.newLeft === 0) {
          fail(
            n,
            `the hunk "${hunk.header}" (line ${hunk.line}) has more added lines than it declares`,
          );
        }
        if (kind === "-" && hunk.oldLeft === 0) {
          fail(
            n,
            `the hunk "${hunk.header}" (line ${hunk.line}) has more removed lines than it declares`,
          );
        }
        if (kind !== "-") {
          if (kind === "+") file.added.push(hunk.next);
          file.newText?.set(hunk.next, raw.slice(1));
          hunk.next++;
          hunk.newLeft--;
        }
        if (kind !== "+") hunk.oldLeft--;
        if (kind !== " ") {
          const content = line.slice(1);
          if (SUBPROJECT.test(content)) file.subprojectLines++;
          else file.otherContentLines++;
        }
        afterContent = true;
        if (hunk.oldLeft === 0 && hunk.newLeft === 0) state = "after-hunk";
        continue;
      }
      if (kind === "\\" && afterContent) {
        afterContent = false;
        continue;
      }
      fail(
        n,
        `the hunk "${hunk.header}" (line ${hunk.line}) ends early: expected ${hunk.oldLeft} more old and ${hunk.newLeft} more new line(s), each starting with ' ', '+' or '-'`,
      );
    }

    if (state === "expect-hunk" || (state === "after-hunk" && line.startsWith("@@"))) {
      if (!file) return fail(n, "internal state without a file");
      if (!line.startsWith("@@")) {
        fail(n, `expected a hunk header "@@ -a,b +c,d @@" after the ---/+++ lines`);
      }
      const h = parseHunkHeader(line, n, fail);
      if (file.hunks === 0) lastNewEnd = 0;
      if (h.newCount > 0 && h.newStart < lastNewEnd) {
        fail(n, `hunk "${line}" overlaps or precedes the previous hunk of the same file`);
      }
      lastNewEnd = h.newStart + h.newCount;
      file.hunks++;
      file.oldLines += h.oldCount;
      file.newLines += h.newCount;
      hunk = { line: n, header: line, oldLeft: h.oldCount, newLeft: h.newCount, next: h.newStart };
      afterContent = false;
      state = h.oldCount === 0 && h.newCount === 0 ? "after-hunk" : "hunk";
      continue;
    }

    if (state === "after-hunk" && line.startsWith("\\")) {
      if (!afterContent) fail(n, `"${line}" does not follow a content line`);
      afterContent = false;
      continue;
    }

    // File starts are recognised in every state outside a hunk body.
    if (line.startsWith("diff --git ")) {
      file = newRaw(n, "git", keepText);
      file.header = line.slice("diff --git ".length);
      files.push(file);
      state = "header";
      continue;
    }
    if (line.startsWith("diff --cc ") || line.startsWith("diff --combined ")) {
      fail(n, "combined (merge) diffs are not supported; pass a two-way diff");
    }
    if (line.startsWith("* Unmerged path ")) {
      fail(n, `"${line}": the index has unresolved merge conflicts`);
    }
    if (/^Only in .+: ./.test(line)) {
      fail(n, `"${line}": the diff leaves out a new or deleted file; make it with \`diff -ruN\``);
    }
    const next = lines[i + 1];
    const nextLine = next?.endsWith("\r") ? next.slice(0, -1) : next;
    if (line.startsWith("--- ") && nextLine?.startsWith("+++ ")) {
      if (state !== "header" || !file || file.minus) {
        file = newRaw(n, "plain", keepText);
        files.push(file);
      }
      file.minus = parseRawPath(line.slice(4), n, source);
      file.plus = parseRawPath(nextLine.slice(4), n + 1, source);
      i++;
      state = "expect-hunk";
      continue;
    }
    const binary = /^Binary files (.+) differ$/.exec(line);
    if (binary) {
      if (state === "header" && file) {
        file.binary = true;
      } else {
        file = newRaw(n, "plain", keepText);
        file.binaryPair = binary[1] as string;
        file.binary = true;
        files.push(file);
        state = "junk";
      }
      continue;
    }
    const log = SUBMODULE_LOG.exec(line);
    if (log) {
      const zero = (sha: string | undefined) => /^0+$/.test(sha ?? "");
      file = newRaw(n, "plain", keepText);
      file.gitlinkLog = {
        path: log[1] as string,
        status: zero(log[2]) ? "added" : zero(log[3]) ? "deleted" : "modified",
      };
      files.push(file);
      state = "junk"; // the "  > subject" lines that follow are the submodule's log
      continue;
    }
    if (line.startsWith("@@")) {
      fail(n, "hunk header outside any file: no `diff --git` or `---`/`+++` lines before it");
    }
    // "-- " opens the signature that `git format-patch` appends after the last hunk.
    if (line === "-- ") {
      state = "junk";
      continue;
    }

    if (state === "header" && file) {
      if (readExtendedHeader(file, line, n, source)) continue;
      if (line === "GIT binary patch") {
        file.binary = true;
        state = "junk"; // the base85 data lines that follow start with letters, never "@@"
        continue;
      }
      if (line.startsWith("--- ")) fail(n, `"---" line without the "+++" line that must follow`);
      if (/^[-+ \\]/.test(line)) fail(n, "content line outside a hunk (no `@@` header before it)");
      if (line === "") state = "junk";
      continue;
    }
    if (state === "after-hunk" && hunk && /^[-+ ]/.test(raw)) {
      fail(n, `the hunk "${hunk.header}" (line ${hunk.line}) has more lines than it declares`);
    }
    state = "junk";
  }

  if (state === "hunk" && hunk) {
    fail(
      lines.length,
      `the diff ends inside the hunk "${hunk.header}" (line ${hunk.line}): expected ${hunk.oldLeft} more old and ${hunk.newLeft} more new line(s)`,
    );
  }
  if (state === "expect-hunk" && file) {
    fail(lines.length, `the file header at line ${file.line} is not followed by a hunk`);
  }
  return files;
}

function parseHunkHeader(
  line: string,
  n: number,
  fail: (n: number, what: string) => never,
): { oldCount: number; newStart: number; newCount: number } {
  if (line.startsWith("@@@"))
    fail(n, "combined (merge) diffs are not supported; pass a two-way diff");
  const m = HUNK_HEADER.exec(line);
  if (!m) fail(n, `malformed hunk header "${line}": expected "@@ -a,b +c,d @@"`);
  const num = (s: string | undefined) => (s === undefined ? 1 : Number(s));
  const oldCount = num(m?.[2]);
  const newStart = Number(m?.[3]);
  const newCount = num(m?.[4]);
  if (![oldCount, newStart, newCount].every(Number.isSafeInteger)) {
    fail(n, `hunk header "${line}" has numbers out of range`);
  }
  if (newCount > 0 && newStart === 0) {
    fail(n, `hunk header "${line}" adds lines starting at line 0; new lines start at 1`);
  }
  return { oldCount, newStart, newCount };
}

type HeaderField =
  | "oldMode"
  | "newMode"
  | "deletedMode"
  | "createdMode"
  | "renameFrom"
  | "renameTo"
  | "copyFrom"
  | "copyTo";

// git's extended header lines; "rename old/new" is what git wrote before 1.5.
const EXTENDED_HEADERS: [string, HeaderField][] = [
  ["old mode ", "oldMode"],
  ["new mode ", "newMode"],
  ["deleted file mode ", "deletedMode"],
  ["new file mode ", "createdMode"],
  ["rename from ", "renameFrom"],
  ["rename old ", "renameFrom"],
  ["rename to ", "renameTo"],
  ["rename new ", "renameTo"],
  ["copy from ", "copyFrom"],
  ["copy to ", "copyTo"],
];
const QUOTABLE: ReadonlySet<HeaderField> = new Set([
  "renameFrom",
  "renameTo",
  "copyFrom",
  "copyTo",
]);

/** Read one git extended header line into `file`; false when the line is not one. */
function readExtendedHeader(file: RawFile, line: string, n: number, source: string): boolean {
  for (const [prefix, key] of EXTENDED_HEADERS) {
    if (!line.startsWith(prefix)) continue;
    const value = line.slice(prefix.length);
    file[key] = QUOTABLE.has(key) ? unquoteWhole(value, n, source) : value;
    return true;
  }
  if (line.startsWith("index ")) {
    const m = /^[0-9a-f]+\.\.([0-9a-f]+)(?: (\d+))?$/.exec(line.slice(6));
    file.indexMode = m?.[2] ?? null;
    const blob = m?.[1] ?? "";
    file.newBlob = (blob.length === 40 || blob.length === 64) && /[^0]/.test(blob) ? blob : null;
    file.anyNewBlob = blob.length >= 7 && /[^0]/.test(blob) ? blob : null;
    return true;
  }
  return line.startsWith("similarity index ") || line.startsWith("dissimilarity index ");
}

/** A `---`/`+++` path: C-quoted, or everything up to the first TAB (timestamp or git's marker). */
function parseRawPath(text: string, n: number, source: string): RawPath {
  if (text.startsWith('"')) {
    const q = parseQuoted(text, 0, n, source);
    return { path: q.value, epoch: false };
  }
  const tab = text.indexOf("\t");
  const path = tab === -1 ? text : text.slice(0, tab);
  const stamp = tab === -1 ? "" : text.slice(tab + 1);
  return { path, epoch: /^(1970-01-01|1969-12-31)[ T]/.test(stamp) };
}

function unquoteWhole(text: string, n: number, source: string): string {
  if (!text.startsWith('"')) return text;
  const q = parseQuoted(text, 0, n, source);
  if (q.end !== text.length) {
    throw refusal("diff-malformed", {
      where: `${source} line ${n}`,
      problem: "unexpected text after the quoted path",
    });
  }
  return q.value;
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};
const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/**
 * Decode a C-quoted path as git writes it (quote_c_style): escapes for control characters,
 * `"` and `\`, and 3-digit octal escapes for raw bytes, which together spell UTF-8.
 */
export function parseQuoted(
  text: string,
  start: number,
  line = 0,
  source = "diff",
): { value: string; end: number } {
  const bad = (what: string): never => {
    throw refusal("diff-malformed", {
      where: `${source} line ${line}`,
      problem: `${what} in the quoted path ${text.slice(start)}`,
    });
  };
  const bytes: number[] = [];
  let i = start + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      try {
        return { value: utf8.decode(Uint8Array.from(bytes)), end: i + 1 };
      } catch {
        throw refusal("diff-path-not-utf8", {
          where: `${source} line ${line}`,
          path: text.slice(start, i + 1),
        });
      }
    }
    if (c === "\\") {
      const e = text[i + 1] ?? "";
      const oct = /^[0-3][0-7]{2}/.exec(text.slice(i + 1, i + 4));
      if (oct) {
        bytes.push(Number.parseInt(oct[0], 8));
        i += 4;
        continue;
      }
      const byte = ESCAPES[e];
      if (byte === undefined) bad(`unknown escape "\\${e}"`);
      bytes.push(byte as number);
      i += 2;
      continue;
    }
    const cp = text.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    for (const b of encoder.encode(ch)) bytes.push(b);
    i += ch.length;
  }
  return bad("missing closing quote");
}

// ---------------------------------------------------------------------------------------------
// Prefixes.

interface Evidence {
  old: string;
  new: string;
  line: number;
}

/**
 * Split two spellings of one file (old side, new side) into their prefixes: "a/src/x.py" and
 * "b/src/x.py" give "a/" and "b/". Equal strings give no prefix. A prefix must end with "/",
 * otherwise the pair names two different files and says nothing about prefixes (null).
 */
function splitPair(oldRaw: string, newRaw: string): { old: string; new: string } | null {
  if (oldRaw === newRaw) return { old: "", new: "" };
  let k = 0;
  while (
    k < oldRaw.length &&
    k < newRaw.length &&
    oldRaw[oldRaw.length - 1 - k] === newRaw[newRaw.length - 1 - k]
  ) {
    k++;
  }
  for (let s = k; s > 0; s--) {
    const oi = oldRaw.length - s;
    const ni = newRaw.length - s;
    if (oi > 0 && ni > 0 && oldRaw[oi - 1] === "/" && newRaw[ni - 1] === "/") {
      return { old: oldRaw.slice(0, oi), new: newRaw.slice(0, ni) };
    }
  }
  return null;
}

/** Every way to read `diff --git <rest>` as two paths (one way when a side is C-quoted). */
function headerSplits(rest: string, n: number, source: string): [string, string][] {
  if (rest.startsWith('"')) {
    const first = parseQuoted(rest, 0, n, source);
    const tail = rest.slice(first.end + 1);
    if (rest[first.end] !== " " || tail === "") return [];
    return [[first.value, unquoteWhole(tail, n, source)]];
  }
  const out: [string, string][] = [];
  for (let i = rest.indexOf(" "); i !== -1; i = rest.indexOf(" ", i + 1)) {
    const right = rest.slice(i + 1);
    const quoted = right.startsWith('"') ? tryQuoted(right, n, source) : null;
    if (quoted !== null) return [[rest.slice(0, i), quoted]];
    out.push([rest.slice(0, i), right]);
  }
  return out;
}

function tryQuoted(text: string, n: number, source: string): string | null {
  try {
    const q = parseQuoted(text, 0, n, source);
    return q.end === text.length ? q.value : null;
  } catch {
    return null;
  }
}

function isRenameOrCopy(raw: RawFile): boolean {
  return raw.renameFrom !== null || raw.copyFrom !== null;
}

function evidenceOf(raw: RawFile, source: string): Evidence | null {
  const from = raw.renameFrom ?? raw.copyFrom;
  const to = raw.renameTo ?? raw.copyTo;
  const minus = raw.minus && raw.minus.path !== DEV_NULL ? raw.minus.path : null;
  const plus = raw.plus && raw.plus.path !== DEV_NULL ? raw.plus.path : null;
  const ends = (s: string, tail: string) =>
    s.endsWith(tail) && (s.length === tail.length || s[s.length - tail.length - 1] === "/");
  if (from !== null && to !== null) {
    // rename/copy lines carry no prefix: the prefix is what the header adds in front of them.
    const pairs: [string, string][] =
      minus !== null && plus !== null
        ? [[minus, plus]]
        : raw.header !== null
          ? headerSplits(raw.header, raw.line, source)
          : [];
    const found = unique(
      pairs
        .filter(([l, r]) => ends(l, from) && ends(r, to))
        .map(([l, r]) => ({
          old: l.slice(0, l.length - from.length),
          new: r.slice(0, r.length - to.length),
        })),
    );
    return found.length === 1 && found[0] ? { ...found[0], line: raw.line } : null;
  }
  if (minus !== null && plus !== null) {
    if (raw.format === "plain" && (raw.minus?.epoch || raw.plus?.epoch)) return null;
    const p = splitPair(minus, plus);
    return p ? { ...p, line: raw.line } : null;
  }
  const pairs =
    raw.header !== null
      ? headerSplits(raw.header, raw.line, source)
      : raw.binaryPair !== null
        ? binarySplits(raw.binaryPair)
        : [];
  const found = unique(
    pairs
      .filter(([l, r]) => l !== DEV_NULL && r !== DEV_NULL)
      .map(([l, r]) => splitPair(l, r))
      .filter((p): p is { old: string; new: string } => p !== null),
  );
  return found.length === 1 && found[0] ? { ...found[0], line: raw.line } : null;
}

function binarySplits(pair: string): [string, string][] {
  const out: [string, string][] = [];
  for (let i = pair.indexOf(" and "); i !== -1; i = pair.indexOf(" and ", i + 1)) {
    out.push([pair.slice(0, i), pair.slice(i + 5)]);
  }
  return out;
}

function unique(pairs: { old: string; new: string }[]): { old: string; new: string }[] {
  const seen = new Map<string, { old: string; new: string }>();
  for (const p of pairs) seen.set(`${p.old}\0${p.new}`, p);
  return [...seen.values()];
}

function inferPrefixes(raws: RawFile[], source: string): PathPrefixDetection {
  let chosen: Evidence | null = null;
  for (const raw of raws) {
    const ev = evidenceOf(raw, source);
    if (!ev) continue;
    if (!chosen) chosen = ev;
    else if (chosen.old !== ev.old || chosen.new !== ev.new) {
      throw refusal("diff-prefixes-disagree", {
        source,
        first: `'${chosen.old}'/'${chosen.new}' at line ${chosen.line}`,
        second: `'${ev.old}'/'${ev.new}' at line ${ev.line}`,
      });
    }
  }
  if (chosen) return { old: chosen.old, new: chosen.new, basis: "evidence", sample: null };
  // Only new/deleted files (or plain pairs of differently named files): no pair shows the
  // prefix. git's a/ b/ is assumed when every path carries it, as `git apply -p1` would.
  const fitsGit = (l: string, r: string) =>
    (l === DEV_NULL || l.startsWith(GIT_PREFIXES.old)) &&
    (r === DEV_NULL || r.startsWith(GIT_PREFIXES.new));
  const fits = raws.every((raw) => {
    if (raw.minus && raw.plus) return fitsGit(raw.minus.path, raw.plus.path);
    const pairs =
      raw.header !== null
        ? headerSplits(raw.header, raw.line, source)
        : raw.binaryPair !== null
          ? binarySplits(raw.binaryPair)
          : [];
    return pairs.some(([l, r]) => fitsGit(l, r));
  });
  return fits
    ? { ...GIT_PREFIXES, basis: "git-default", sample: null }
    : { old: "", new: "", basis: "none", sample: null };
}

// ---------------------------------------------------------------------------------------------
// Resolving raw records into ChangedFile values.

function resolveFile(raw: RawFile, prefixes: PathPrefixes, source: string): ChangedFile {
  const where = `${source} line ${raw.line}`;
  const strip = (p: string, prefix: string): string => {
    if (!p.startsWith(prefix)) {
      throw refusal("diff-prefix-missing", { where, path: p, prefix });
    }
    return cleanPath(p.slice(prefix.length), where);
  };
  const side = (p: RawPath | null, prefix: string): string | null =>
    p === null || p.path === DEV_NULL ? null : strip(p.path, prefix);

  let oldPath: string | null;
  let newPath: string | null;
  let status: ChangeStatus;

  if (raw.gitlinkLog !== null) {
    const { path, status: logStatus } = raw.gitlinkLog;
    return { ...finish(raw, cleanPath(path, where), null, logStatus), submodule: true };
  }
  if (raw.format === "plain") {
    const oldGone =
      raw.minus !== null &&
      (raw.minus.path === DEV_NULL || (raw.minus.epoch && raw.oldLines === 0));
    const newGone =
      raw.plus !== null && (raw.plus.path === DEV_NULL || (raw.plus.epoch && raw.newLines === 0));
    if (raw.binaryPair !== null) {
      [oldPath, newPath] = splitBinaryPair(raw.binaryPair, prefixes, where, strip);
    } else {
      oldPath = oldGone ? null : side(raw.minus, prefixes.old);
      newPath = newGone ? null : side(raw.plus, prefixes.new);
    }
    status = oldPath === null ? "added" : newPath === null ? "deleted" : "modified";
    // Plain diffs know no renames: the file is the new side (`diff -u x.py.orig x.py`).
    const path = newPath ?? oldPath;
    if (path === null)
      throw refusal("diff-malformed", { where, problem: "both sides are /dev/null" });
    return finish(raw, path, null, status);
  }

  oldPath = raw.renameFrom ?? raw.copyFrom;
  newPath = raw.renameTo ?? raw.copyTo;
  if (oldPath !== null) oldPath = cleanPath(oldPath, where);
  if (newPath !== null) newPath = cleanPath(newPath, where);
  if (raw.minus && raw.plus) {
    oldPath ??= side(raw.minus, prefixes.old);
    newPath ??= side(raw.plus, prefixes.new);
  } else if (oldPath === null || newPath === null) {
    const p = headerPath(raw, prefixes, where, source);
    oldPath ??= p;
    newPath ??= p;
  }
  const created = raw.createdMode !== null || raw.minus?.path === DEV_NULL;
  const deleted = raw.deletedMode !== null || raw.plus?.path === DEV_NULL;
  if (created) oldPath = null;
  if (deleted) newPath = null;
  if (raw.renameFrom !== null) status = "renamed";
  else if (raw.copyFrom !== null) status = "copied";
  else if (created) status = "added";
  else if (deleted) status = "deleted";
  else if (
    raw.oldMode !== null &&
    raw.newMode !== null &&
    modeType(raw.oldMode) !== modeType(raw.newMode)
  ) {
    status = "type-changed";
  } else if (raw.hunks === 0 && !raw.binary && raw.oldMode !== null && raw.newMode !== null) {
    status = "mode-changed";
  } else status = "modified";
  const path = newPath ?? oldPath;
  if (path === null) throw refusal("diff-malformed", { where, problem: "the file has no path" });
  return finish(raw, path, isRenameOrCopy(raw) ? oldPath : null, status);
}

function finish(
  raw: RawFile,
  path: string,
  oldPath: string | null,
  status: ChangeStatus,
): ChangedFile {
  const modes = [raw.oldMode, raw.newMode, raw.deletedMode, raw.createdMode, raw.indexMode];
  const submodule =
    modes.includes("160000") ||
    (raw.subprojectLines > 0 && raw.otherContentLines === 0 && raw.subprojectLines <= 2);
  const addedLines = submodule ? [] : [...new Set(raw.added)].sort((a, b) => a - b);
  const file: ChangedFile = { path, oldPath, status, binary: raw.binary, submodule, addedLines };
  if (raw.newBlob !== null && status !== "deleted") file.newBlob = raw.newBlob;
  return file;
}

/** The one path a `diff --git` header names when both sides are the same file. */
function headerPath(raw: RawFile, prefixes: PathPrefixes, where: string, source: string): string {
  const candidates = new Set<string>();
  for (const [l, r] of headerSplits(raw.header ?? "", raw.line, source)) {
    if (!l.startsWith(prefixes.old) || !r.startsWith(prefixes.new)) continue;
    const a = l.slice(prefixes.old.length);
    if (a === r.slice(prefixes.new.length)) candidates.add(a);
  }
  const [only] = candidates;
  if (candidates.size !== 1 || only === undefined) {
    throw refusal("diff-malformed", {
      where,
      problem: `cannot split the "diff --git" header into two paths with the prefixes '${prefixes.old}' and '${prefixes.new}'`,
    });
  }
  return cleanPath(only, where);
}

function splitBinaryPair(
  pair: string,
  prefixes: PathPrefixes,
  where: string,
  strip: (p: string, prefix: string) => string,
): [string | null, string | null] {
  const fits = binarySplits(pair).filter(([l, r]) => {
    const okL = l === DEV_NULL || l.startsWith(prefixes.old);
    const okR = r === DEV_NULL || r.startsWith(prefixes.new);
    if (!okL || !okR || (l === DEV_NULL && r === DEV_NULL)) return false;
    return (
      l === DEV_NULL ||
      r === DEV_NULL ||
      l.slice(prefixes.old.length) === r.slice(prefixes.new.length)
    );
  });
  const [only] = fits;
  if (fits.length !== 1 || !only) {
    throw refusal("diff-malformed", {
      where,
      problem: `cannot read the two paths of "Binary files ${pair} differ"`,
    });
  }
  return [
    only[0] === DEV_NULL ? null : strip(only[0], prefixes.old),
    only[1] === DEV_NULL ? null : strip(only[1], prefixes.new),
  ];
}

/** Repository-relative POSIX path, or InputError: no absolute paths, no "..", no "./". */
function cleanPath(p: string, where: string): string {
  let path = p;
  while (path.startsWith("./")) path = path.slice(2);
  const bad =
    path === "" ||
    path.startsWith("/") ||
    /^[A-Za-z]:[\\/]/.test(path) ||
    path.includes("\0") ||
    path.split("/").some((seg) => seg === ".." || seg === "." || seg === "");
  if (bad) {
    throw refusal("diff-path-outside-repo", { where, path: p });
  }
  return path;
}

/** "10" regular file, "12" symlink, "16" gitlink: the object type part of a git mode. */
function modeType(mode: string): string {
  return mode.padStart(6, "0").slice(0, 2);
}

function sampleOf(raw: RawFile, file: ChangedFile): { raw: string; path: string } | null {
  const written = [raw.plus?.path, raw.minus?.path].find((p) => p !== undefined && p !== DEV_NULL);
  return written === undefined ? null : { raw: written, path: file.path };
}

/**
 * git prints a type change (file <-> symlink <-> submodule) as a deletion followed by a
 * creation of the same path. Merge such pairs; any other repeated path is an error, because two
 * sections for one file (e.g. two commits' diffs concatenated) number lines in different
 * versions of it.
 */
function mergeTypeChanges(files: ChangedFile[], raws: RawFile[], source: string): ChangedFile[] {
  const out: ChangedFile[] = [];
  const seen = new Map<string, { index: number; raw: RawFile }>();
  files.forEach((file, i) => {
    const raw = raws[i] as RawFile;
    const prior = seen.get(file.path);
    if (!prior) {
      seen.set(file.path, { index: out.length, raw });
      out.push(file);
      return;
    }
    const before = out[prior.index] as ChangedFile;
    const pair =
      (before.status === "deleted" && file.status === "added") ||
      (before.status === "added" && file.status === "deleted");
    if (!pair) {
      throw refusal("diff-file-twice", {
        source,
        line: raw.line,
        path: file.path,
        first: prior.raw.line,
      });
    }
    const [born, goneRaw, bornRaw] =
      before.status === "deleted" ? [file, prior.raw, raw] : [before, raw, prior.raw];
    const oldType = goneRaw.deletedMode === null ? null : modeType(goneRaw.deletedMode);
    const newType = bornRaw.createdMode === null ? null : modeType(bornRaw.createdMode);
    out[prior.index] = {
      path: file.path,
      oldPath: null,
      status:
        oldType !== null && newType !== null && oldType !== newType ? "type-changed" : "modified",
      binary: born.binary,
      submodule: born.submodule,
      addedLines: born.addedLines,
      ...(born.newBlob === undefined ? {} : { newBlob: born.newBlob }),
    };
    seen.set(file.path, { index: prior.index, raw: bornRaw });
  });
  return out;
}
