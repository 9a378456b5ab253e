// Calibration canaries: statements chosen from the per-test data, each changed in meaning by a
// small deterministic edit, to see whether the gate fires where it must. Pure: which
// statements qualify, the seeded sample, the edit of one line's text, the diff that carries
// the canaries to the audit, and the judgment of the audit's verdicts. The command reads the
// data and runs the audit (src/app/calibrate.ts).

import type { ContextIndex, StatementMap } from "./model.js";
import type { FailableVerdict, ShadowAudit, SkipReason, Verdict } from "./shadow-audit.js";

/**
 * `shadow`: only frozen tests execute the statement (the gate must fire); `control`: a live
 * test executes it in its body (the gate must not fire); `uncovered`: no test executes it
 * (the gate fires only when fail-on names uncovered).
 */
export type CanaryKind = "shadow" | "control" | "uncovered";
export const CANARY_KINDS: readonly CanaryKind[] = ["shadow", "control", "uncovered"];

/** A statement that qualifies as a canary, before it is edited. */
export interface CanaryCandidate {
  kind: CanaryKind;
  path: string;
  /** The statement's first line. */
  line: number;
  /** The tests that execute it: frozen ones for a shadow canary, live ones for a control. */
  tests: string[];
}

/**
 * The statements of one file that qualify, by kind. A statement's tests are those of every
 * line of it the data records (a multi-line statement may be recorded on any of its lines), as
 * the audit groups them. A statement a live test reaches only in setup or teardown is none of
 * the kinds (the audit calls it fixture-only), nor is one only code outside tests ran.
 */
export function canaryCandidates(
  file: {
    path: string;
    lineCount: number;
    executed: ReadonlyMap<number, readonly string[]>;
    statements: StatementMap;
  },
  contexts: Pick<ContextIndex, "get">,
  frozen: ReadonlySet<string>,
): CanaryCandidate[] {
  const covers = new Map<number, { frozen: Set<string>; live: Set<string>; fixture: boolean }>();
  for (const [line, names] of file.executed) {
    const stmt = file.statements.statementOf(line);
    if (stmt === null) continue;
    let cover = covers.get(stmt);
    for (const name of names) {
      const ctx = contexts.get(name);
      if (ctx.testId === null) continue;
      cover ??= { frozen: new Set(), live: new Set(), fixture: false };
      covers.set(stmt, cover);
      if (frozen.has(ctx.testId)) cover.frozen.add(ctx.testId);
      else if (ctx.phase === "setup" || ctx.phase === "teardown") cover.fixture = true;
      else cover.live.add(ctx.testId);
    }
  }
  const out: CanaryCandidate[] = [];
  for (let line = 1; line <= file.lineCount; line++) {
    if (file.statements.statementOf(line) !== line) continue;
    const cover = covers.get(line);
    const kind: CanaryKind | null =
      cover === undefined
        ? "uncovered"
        : cover.live.size > 0
          ? "control"
          : cover.fixture
            ? null
            : cover.frozen.size > 0
              ? "shadow"
              : null;
    if (kind === null) continue;
    const tests = kind === "shadow" ? cover?.frozen : kind === "control" ? cover?.live : undefined;
    out.push({ kind, path: file.path, line, tests: tests ? [...tests].sort() : [] });
  }
  return out;
}

/** How many canaries of each kind `max` allows: half shadow, then half the rest controls. */
export function canaryQuotas(max: number): Record<CanaryKind, number> {
  const shadow = Math.ceil(max / 2);
  const control = Math.ceil((max - shadow) / 2);
  return { shadow, control, uncovered: max - shadow - control };
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same sample. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `items` in a seeded random order (Fisher-Yates); the input is not changed. */
export function seededShuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export type MutationKind =
  | "comparison"
  | "boolean"
  | "logical"
  | "constant"
  | "return-value"
  | "arithmetic";

export type CanaryLanguage = "python" | "javascript";

/** The language whose syntax the edit follows, by the file's extension; null: none known. */
export function canaryLanguage(path: string): CanaryLanguage | null {
  if (/\.pyi?$/.test(path)) return "python";
  if (/\.[cm]?[jt]sx?$/.test(path)) return "javascript";
  return null;
}

/**
 * The line with string literals and comments blanked out (same length, so that an index found
 * in it is an index in the line): an operator inside a string is no operator.
 */
function codeOnly(text: string, language: CanaryLanguage): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    const comment =
      language === "python" ? c === "#" : text.startsWith("//", i) || text.startsWith("/*", i);
    if (comment) {
      const end = text.startsWith("/*", i) ? text.indexOf("*/", i + 2) : -1;
      const stop = end < 0 ? text.length : end + 2;
      out += " ".repeat(stop - i);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || (c === "`" && language === "javascript")) {
      const quote = language === "python" && text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < text.length && !text.startsWith(quote, j)) j += text[j] === "\\" ? 2 : 1;
      const stop = Math.min(text.length, j + quote.length);
      out += " ".repeat(stop - i);
      i = stop;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

interface Rule {
  kind: MutationKind;
  pattern: RegExp;
  replace: (match: string) => string | null;
}

const FLIP: Record<string, string> = {
  "===": "!==",
  "!==": "===",
  "==": "!=",
  "!=": "==",
  "<=": ">",
  ">=": "<",
  "<": ">=",
  ">": "<=",
};

function rules(language: CanaryLanguage): Rule[] {
  const py = language === "python";
  return [
    {
      kind: "comparison",
      // Not an arrow (->, =>), a shift (<<, >>) or an assignment operator (<<=, >>=).
      pattern: /===|!==|(?<![=!<>])==|!=(?!=)|(?<![<>])[<>]=|(?<![<>=-])[<>](?![<>=])/,
      replace: (m) => FLIP[m] ?? null,
    },
    {
      kind: "boolean",
      pattern: py ? /\b(?:True|False)\b/ : /\b(?:true|false)\b/,
      replace: (m) => ({ True: "False", False: "True", true: "false", false: "true" })[m] ?? null,
    },
    {
      kind: "logical",
      pattern: py ? /\b(?:and|or)\b/ : /&&|\|\|/,
      replace: (m) => ({ and: "or", or: "and", "&&": "||", "||": "&&" })[m] ?? null,
    },
    {
      kind: "constant",
      pattern: /(?<![\w.])\d+(?![\w.])/,
      replace: (m) => String(BigInt(m) + 1n),
    },
    {
      kind: "return-value",
      pattern: py ? /\breturn\s+(?!None\b)\S.*$/ : /\breturn\s+(?!undefined\b)[^;\s].*?(?=;?\s*$)/,
      replace: () => (py ? "return None" : "return undefined"),
    },
    {
      kind: "arithmetic",
      // Binary only, and not an arrow, an augmented assignment, ++ or --.
      pattern: /(?<=[\w)\]]\s*)(?<![+-])[+-](?![+=>-])/,
      replace: (m) => (m === "+" ? "-" : "+"),
    },
  ];
}

/**
 * The line with its meaning changed by the first rule that applies (a comparison flipped, a
 * boolean or logical operator swapped, a whole number raised by one, the returned value
 * dropped, a plus made a minus), or null when none does. Strings and comments are left alone.
 */
export function mutateLine(
  text: string,
  language: CanaryLanguage,
): { mutant: string; mutation: MutationKind } | null {
  const code = codeOnly(text, language);
  for (const rule of rules(language)) {
    const m = rule.pattern.exec(code);
    if (m === null) continue;
    const replacement = rule.replace(m[0]);
    if (replacement === null) continue;
    const mutant = text.slice(0, m.index) + replacement + text.slice(m.index + m[0].length);
    if (mutant !== text) return { mutant, mutation: rule.kind };
  }
  return null;
}

/** A canary: a qualifying statement and the edit that changes its first line's meaning. */
export interface Canary extends CanaryCandidate {
  /** The line as it is on disk (what the tests ran), without its line break. */
  text: string;
  /** The line as the canary's other side has it. */
  mutant: string;
  mutation: MutationKind;
}

/** How a canary's line ends on disk: its break (kept on both sides), or none (the file's end). */
export interface CanaryLine extends Canary {
  lineBreak: "\n" | "\r\n" | "";
}

/** A path as git writes it in a diff header: C-quoted when it holds a character that needs it. */
export function diffPath(prefix: "a/" | "b/", path: string): string {
  const full = prefix + path;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  if (!/["\\\u0000-\u001f\u007f-\uffff]/.test(full)) return full;
  const named: Record<number, string> = { 7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f" };
  named[13] = "r";
  named[34] = '"';
  named[92] = "\\";
  let out = "";
  for (const byte of Buffer.from(full, "utf8")) {
    const name = named[byte];
    if (name !== undefined) out += `\\${name}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `"${out}"`;
}

/**
 * The canaries as one unified diff, a one-line hunk each. Its new side is each file as it is
 * on disk, the text the tests ran and the audit reads; the old side has the edited line. The
 * gate judges a patch's new side, so each hunk asks exactly: would the gate let a change of
 * this statement through? No file is written.
 */
export function canaryDiff(canaries: readonly CanaryLine[]): string {
  const byPath = new Map<string, CanaryLine[]>();
  for (const c of canaries) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c]);
  const out: string[] = [];
  for (const path of [...byPath.keys()].sort()) {
    const a = diffPath("a/", path);
    const b = diffPath("b/", path);
    out.push(`diff --git ${a} ${b}\n--- ${a}\n+++ ${b}\n`);
    for (const c of (byPath.get(path) ?? []).sort((x, y) => x.line - y.line)) {
      const end = c.lineBreak === "" ? "\n\\ No newline at end of file\n" : c.lineBreak;
      out.push(`@@ -${c.line} +${c.line} @@\n-${c.mutant}${end}+${c.text}${end}`);
    }
  }
  return out.join("");
}

/** What the gate did with one canary. */
export interface CanaryResult extends Canary {
  /** The audit's verdict of the line; null when the gate skipped its file. */
  verdict: Verdict | null;
  /** Why the gate did not look at the file, or null. */
  skipped: SkipReason | null;
  /** Would the gate fail a patch that changes only this statement? */
  fired: boolean;
  /** What a working gate does: fire (shadow; uncovered when fail-on names it) or pass. */
  expected: "fire" | "pass";
  /** Did the gate do what it must? Uncovered canaries always count as ok (reported only). */
  ok: boolean;
  /** Why it did not, in a sentence; null when it did. */
  reason: string | null;
}

const SKIP_WORDS: Record<SkipReason, string> = {
  "test-file": "takes the file for a test file (the test-files setting or the runner's defaults)",
  "not-source": "does not audit the file (the source-files setting does not match it)",
  deleted: "reads the file as deleted",
  binary: "reads the file as binary",
  submodule: "reads the file as a submodule",
  "no-lines": "finds no changed line in the file",
};

function verdictReason(c: Canary, verdict: Verdict, failOn: readonly FailableVerdict[]): string {
  const judged = `the gate judged line ${c.line} ${verdict}`;
  if (c.kind !== "shadow") return `${judged}, which fails the gate (fail-on: ${failOn.join(", ")})`;
  switch (verdict) {
    case "not-code":
      return `${judged}: it does not read the statement as code`;
    case "defended":
      return `${judged}: it counts a test as live that the frozen list freezes`;
    default:
      return `${judged}, which fail-on (${failOn.join(", ")}) lets through, though only frozen tests execute it`;
  }
}

/** Each canary's fate in the audit of the canary diff. */
export function judgeCanaries(canaries: readonly Canary[], audit: ShadowAudit): CanaryResult[] {
  const failOn = audit.gate.failOn;
  const files = new Map(audit.files.map((f) => [f.path, f]));
  const skipped = new Map(audit.skipped.map((s) => [s.path, s.reason]));
  return canaries.map((c): CanaryResult => {
    const expected =
      c.kind === "shadow" || (c.kind === "uncovered" && failOn.includes("uncovered"))
        ? "fire"
        : "pass";
    const skip = skipped.get(c.path) ?? null;
    const verdict = files.get(c.path)?.lines.find((l) => l.line === c.line)?.verdict ?? null;
    const fired = verdict !== null && (failOn as readonly string[]).includes(verdict);
    const ok = c.kind === "uncovered" || fired === (expected === "fire");
    let reason: string | null = null;
    if (!ok) {
      reason =
        skip !== null
          ? `the gate ${SKIP_WORDS[skip]}, so a change there never fails it`
          : verdict === null
            ? "the audit gave the line no verdict"
            : verdictReason(c, verdict, failOn);
    }
    return { ...c, verdict, skipped: skip, fired, expected, ok, reason };
  });
}
