// What a freeze withdraws, in killed mutants. Each withdrawn statement is changed in meaning (a
// mutant: a comparison flipped, a constant changed, ...), only the tests the per-test data shows
// executing it run against it, and the mutant is judged by who killed it: a live test, the
// compensating property, only the tests to be frozen, or nobody. Pure: which tests run for a
// statement, the seeded sample, the splice of a mutant into a file's text, the reading of the
// mutator's answer and of a run's outcomes, and the judgment. src/app/mutants.ts runs them.

import { seededRandom, seededShuffle } from "./canaries.js";
import { matchesTest } from "./impact.js";
import type { ContextIndex } from "./model.js";
import { refusal } from "./refusals/index.js";

/**
 * Why a test runs against a statement's mutants: `target`, one of the tests to be frozen;
 * `property`, the compensating property; `live`, any other test the ledger does not freeze.
 */
export type TestRole = "target" | "live" | "property";

export interface SelectedTest {
  id: string;
  role: TestRole;
}

/** A withdrawn statement and the tests that execute it (sorted by id). */
export interface MutationSite {
  path: string;
  line: number;
  tests: SelectedTest[];
  /** Sites of one group share the sample as sampleMutants says (none: one group). */
  group?: string;
}

export interface SiteInput {
  /** The withdrawn lines, per file. */
  files: readonly { path: string; lines: readonly number[] }[];
  /** Per file, line -> the context names that executed it. */
  executed: ReadonlyMap<string, ReadonlyMap<number, readonly string[]>>;
  contexts: Pick<ContextIndex, "get">;
  targets: ReadonlySet<string>;
  /** Tests the ledger freezes already: they defend nothing, so they do not run. */
  frozen: ReadonlySet<string>;
  /** The compensating property's tests (none without one). */
  property: ReadonlySet<string>;
}

/**
 * The tests that run against each withdrawn line's mutants: every test the data shows
 * executing the line, in any phase (a fixture that reaches it can fail on its mutant too), but
 * not the tests the ledger already freezes. A frozen property guards nothing and does not run.
 */
export function mutationSites(input: SiteInput): MutationSite[] {
  const out: MutationSite[] = [];
  for (const file of input.files) {
    const executed = input.executed.get(file.path);
    for (const line of file.lines) {
      const roles = new Map<string, TestRole>();
      for (const name of executed?.get(line) ?? []) {
        const id = input.contexts.get(name).testId;
        if (id === null || roles.has(id)) continue;
        if (input.targets.has(id)) roles.set(id, "target");
        else if (input.frozen.has(id)) continue;
        else roles.set(id, input.property.has(id) ? "property" : "live");
      }
      const tests = [...roles]
        .map(([id, role]) => ({ id, role }))
        .sort((a, b) => compareText(a.id, b.id));
      out.push({ path: file.path, line, tests });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The mutator's answer.

export const MUTATION_KINDS = [
  "operator",
  "comparison",
  "constant",
  "condition",
  "return",
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/**
 * Whole lines `startLine`..`endLine` (1-based, inclusive) replaced by `text`; an `endLine` one
 * before `startLine` inserts `text` there (an empty file's probe).
 */
export interface LineEdit {
  startLine: number;
  endLine: number;
  /** The new lines, with their line breaks. */
  text: string;
}

export interface Mutant extends LineEdit {
  /** Repository path. */
  path: string;
  /** The statement's line, as the coverage data numbers it. */
  line: number;
  kind: MutationKind;
  /** What changed, e.g. "`a < b` -> `a <= b`". */
  description: string;
}

export interface MutatorAnswer {
  /** In the mutator's order (deterministic). */
  mutants: Mutant[];
  /** An edit that makes importing the module fail. */
  probe: LineEdit;
  /** How many of the statements asked for hold nothing to mutate. */
  unmutable: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isLine = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

function lineEditProblem(v: unknown, what: string): string | null {
  if (!isObject(v)) return `${what} is not an object`;
  const { startLine, endLine } = v;
  if (!isLine(startLine) || !Number.isSafeInteger(endLine) || (endLine as number) < startLine - 1) {
    return `${what} has no line range (startLine, endLine)`;
  }
  if (typeof v.text !== "string") return `${what} has no text`;
  return null;
}

function answerProblem(value: unknown): string | null {
  if (!isObject(value)) return "it is not a JSON object";
  if (value.version !== 1) return `its version is ${JSON.stringify(value.version)}, not 1`;
  if (!Array.isArray(value.mutants)) return "it has no mutants list";
  for (const [i, m] of value.mutants.entries()) {
    const problem = lineEditProblem(m, `mutant ${i + 1}`);
    if (problem !== null) return problem;
    const { line, kind, description } = m as Json;
    if (!isLine(line)) return `mutant ${i + 1} has no line`;
    if (!(MUTATION_KINDS as readonly unknown[]).includes(kind)) {
      return `mutant ${i + 1} has an unknown kind ${JSON.stringify(kind)}`;
    }
    if (typeof description !== "string") return `mutant ${i + 1} has no description`;
  }
  const probe = lineEditProblem(value.probe, "the probe");
  if (probe !== null) return probe;
  if (!Number.isSafeInteger(value.unmutable) || (value.unmutable as number) < 0) {
    return "it has no unmutable count";
  }
  return null;
}

/**
 * The mutator's answer for repository file `path` (its stdout), checked field by field: an
 * answer of another shape comes from another version of the mutator, and is refused.
 */
export function readMutatorAnswer(text: string, path: string): MutatorAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refusal("mutator-output-unreadable", { path, why: "it is not JSON" });
  }
  const why = answerProblem(value);
  if (why !== null) throw refusal("mutator-output-unreadable", { path, why });
  const answer = value as {
    mutants: Omit<Mutant, "path">[];
    probe: LineEdit;
    unmutable: number;
  };
  const edit = ({ startLine, endLine, text }: LineEdit) => ({ startLine, endLine, text });
  return {
    mutants: answer.mutants.map((m) => ({
      path,
      line: m.line,
      kind: m.kind,
      description: m.description,
      ...edit(m),
    })),
    probe: edit(answer.probe),
    unmutable: answer.unmutable,
  };
}

/** `text` as its lines, each with its line break (`\n`, `\r\n` or `\r`; the last may have none). */
function linesWithBreaks(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$/g) ?? [];
}

/** `text` with the edit's lines replaced, or null when the text has no such lines. */
export function splice(text: string, edit: LineEdit): string | null {
  const lines = linesWithBreaks(text);
  if (edit.startLine < 1 || edit.endLine < edit.startLine - 1 || edit.endLine > lines.length) {
    return null;
  }
  return [...lines.slice(0, edit.startLine - 1), edit.text, ...lines.slice(edit.endLine)].join("");
}

/**
 * At most `max` of `mutants`, drawn with calibrate's seeded generator (the same seed, the same
 * sample), in their own order. A smaller `max` keeps a prefix of the same draw, so its sample
 * is part of a larger one's. With `groupOf`, each group keeps its share of the sample
 * (proportional to its mutants, largest remainders first, every group at least one while
 * `max` allows): a group with few mutants is not left out by chance.
 */
export function sampleMutants<T>(
  mutants: readonly T[],
  max: number,
  seed: number,
  groupOf?: (mutant: T) => string,
): T[] {
  if (mutants.length <= max) return [...mutants];
  const random = seededRandom(seed);
  const groups = new Map<string, number[]>();
  for (const [i, m] of mutants.entries()) {
    const key = groupOf === undefined ? "" : groupOf(m);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  const quotas = groupQuotas(
    [...groups.keys()].sort(compareText).map((key) => [key, (groups.get(key) as number[]).length]),
    max,
  );
  const picked = quotas
    .flatMap(([key, quota]) => seededShuffle(groups.get(key) as number[], random).slice(0, quota))
    .sort((a, b) => a - b);
  return picked.map((i) => mutants[i] as T);
}

/**
 * `max` (less than the sizes' total) split between groups of these sizes, in the groups'
 * order: one each first while `max` allows, the rest in proportion to what each has left,
 * largest remainders first (ties to the earlier group).
 */
function groupQuotas(sizes: readonly [string, number][], max: number): [string, number][] {
  const quotas = sizes.map(([, size]) => (max >= sizes.length ? Math.min(1, size) : 0));
  const room = sizes.map(([, size], i) => size - (quotas[i] as number));
  const spare = max - quotas.reduce((n, q) => n + q, 0);
  const total = room.reduce((n, r) => n + r, 0);
  const shares = room.map((r) => (total === 0 ? 0 : (spare * r) / total));
  for (const [i, share] of shares.entries()) quotas[i] = (quotas[i] as number) + Math.floor(share);
  let left = max - quotas.reduce((n, q) => n + q, 0);
  const order = shares
    .map((share, i) => ({ i, rest: share - Math.floor(share) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    if ((quotas[i] as number) < (sizes[i] as [string, number])[1]) {
      quotas[i] = (quotas[i] as number) + 1;
      left--;
    }
  }
  return sizes.map(([key], i) => [key, quotas[i] as number]);
}

// ---------------------------------------------------------------------------------------------
// Outcomes and the judgment.

export const OUTCOMES = ["passed", "failed", "error", "skipped", "xfailed", "xpassed"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A run's outcomes file (test id -> outcome), or null when it is not one. */
export function readOutcomes(text: string): ReadonlyMap<string, Outcome> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(value) || value.version !== 1 || !isObject(value.outcomes)) return null;
  const out = new Map<string, Outcome>();
  for (const [id, outcome] of Object.entries(value.outcomes)) {
    if (!(OUTCOMES as readonly unknown[]).includes(outcome)) return null;
    out.set(id, outcome as Outcome);
  }
  return out;
}

const failing = (o: Outcome | undefined) => o === "failed" || o === "error";

/**
 * What happened to test `id` in a run: its own outcome, or its parametrized cases' (failing
 * when one failed), or, when it was never reached, the failure of the collector that held it
 * (its module or package failed to import). null: it did not run.
 */
export function outcomeOf(id: string, outcomes: ReadonlyMap<string, Outcome>): Outcome | null {
  const own = outcomes.get(id);
  if (own !== undefined) return own;
  const cases = [...outcomes].filter(([key]) => matchesTest(id, key)).map(([, o]) => o);
  if (cases.length > 0) return cases.find(failing) ?? (cases[0] as Outcome);
  let holder: string | null = null;
  for (const [key, outcome] of outcomes) {
    const holds = key === "" || id.startsWith(`${key}::`) || id.startsWith(`${key}/`);
    if (holds && failing(outcome) && (holder === null || key.length > holder.length)) holder = key;
  }
  return holder === null ? null : (outcomes.get(holder) as Outcome);
}

/**
 * Did the run kill the mutant for test `id`: the test failed or errored, or did not run at all
 * (it ran before the mutation, so the mutant broke its collection). A run that left no outcomes
 * (`null`: the mutant broke the session) kills it for every test.
 */
export function killedFor(id: string, outcomes: ReadonlyMap<string, Outcome> | null): boolean {
  if (outcomes === null) return true;
  const o = outcomeOf(id, outcomes);
  return o === null || failing(o);
}

/**
 * `live`: a live test killed the mutant; `property`: the property did and no live test;
 * `frozen`: only the tests to be frozen did; `survived`: no test did; `timeout`: the run did
 * not end in time, so who would kill it is unknown; `unjudged`: every test that executes it
 * failed before any mutation, so none can judge it.
 */
export type MutantClass = "live" | "property" | "frozen" | "survived" | "timeout" | "unjudged";
export const MUTANT_CLASSES: readonly MutantClass[] = [
  "frozen",
  "property",
  "live",
  "survived",
  "timeout",
  "unjudged",
];

/** One mutant's run: timed out, or ended with these outcomes (null: it left none). */
export type MutantRun =
  | { timedOut: true }
  | { timedOut: false; outcomes: ReadonlyMap<string, Outcome> | null };

export interface Judgment {
  class: MutantClass;
  /** The tests that killed it, sorted by id. */
  killedBy: SelectedTest[];
}

/** The judgment of a mutant by `tests` (those that can judge it) in `run` (null: not run). */
export function judgeMutant(tests: readonly SelectedTest[], run: MutantRun | null): Judgment {
  if (run === null || tests.length === 0) return { class: "unjudged", killedBy: [] };
  if (run.timedOut) return { class: "timeout", killedBy: [] };
  const killedBy = tests.filter((t) => killedFor(t.id, run.outcomes));
  const by = (role: TestRole) => killedBy.some((t) => t.role === role);
  const kind: MutantClass = by("live")
    ? "live"
    : by("property")
      ? "property"
      : by("target")
        ? "frozen"
        : "survived";
  return { class: kind, killedBy };
}

export interface MutantCounts {
  /** Mutants judged (the sample). */
  mutants: number;
  /** M: killed by any test. */
  killed: number;
  /** K: killed by a test to be frozen and by no live test: the kills the freeze withdraws. */
  withdrawn: number;
  /** J: of those, killed by the property; null without one. */
  recovered: number | null;
  /** Per class. */
  classes: Record<MutantClass, number>;
}

export function countMutants(judged: readonly Judgment[], withProperty: boolean): MutantCounts {
  const classes = Object.fromEntries(MUTANT_CLASSES.map((c) => [c, 0])) as Record<
    MutantClass,
    number
  >;
  let killed = 0;
  let withdrawn = 0;
  let recovered = 0;
  for (const j of judged) {
    classes[j.class]++;
    const by = (role: TestRole) => j.killedBy.some((t) => t.role === role);
    if (j.killedBy.length > 0) killed++;
    if (by("target") && !by("live")) {
      withdrawn++;
      if (by("property")) recovered++;
    }
  }
  return {
    mutants: judged.length,
    killed,
    withdrawn,
    recovered: withProperty ? recovered : null,
    classes,
  };
}

/** The sentence a reviewer reads: "freezing T withdraws K of M mutant kills; its property recovers J". */
export function mutantSentence(tests: readonly string[], counts: MutantCounts): string {
  const kills = `${counts.killed} mutant kill${counts.killed === 1 ? "" : "s"}`;
  const base = `freezing ${tests.join(", ")} withdraws ${counts.withdrawn} of ${kills}`;
  return counts.recovered === null ? base : `${base}; its property recovers ${counts.recovered}`;
}

/** What the mutants of one kind of calibration statement came to. */
export interface KindMutantCounts {
  /** Mutants judged. */
  mutants: number;
  /** Killed by the tests that ran them: live ones for a control, frozen ones for a shadow. */
  killed: number;
  survived: number;
  timeout: number;
  unjudged: number;
}

export function kindMutantCounts(judged: readonly Judgment[]): KindMutantCounts {
  const counts = countMutants(judged, false);
  return {
    mutants: counts.mutants,
    killed: counts.killed,
    survived: counts.classes.survived,
    timeout: counts.classes.timeout,
    unjudged: counts.classes.unjudged,
  };
}

/**
 * The sentence a reviewer reads of a calibration's mutants: "of 12 mutants of control
 * statements, live tests kill 9 and 3 survive (executed, not defended); of 18 mutants of
 * shadow statements, only frozen tests kill 14 (the kills the freezes withdraw)".
 */
export function calibrationMutantSentence(counts: {
  shadow: KindMutantCounts;
  control: KindMutantCounts;
}): string {
  const of = (c: KindMutantCounts, kind: string) =>
    `of ${c.mutants} mutant${c.mutants === 1 ? "" : "s"} of ${kind} statements`;
  const { control, shadow } = counts;
  const survive = control.survived === 1 ? "survives" : "survive";
  return [
    control.mutants === 0
      ? "no mutant of a control statement ran"
      : `${of(control, "control")}, live tests kill ${control.killed}${control.survived === 0 ? "" : ` and ${control.survived} ${survive} (executed, not defended)`}`,
    shadow.mutants === 0
      ? "no mutant of a shadow statement ran"
      : `${of(shadow, "shadow")}, only frozen tests kill ${shadow.killed} (the kills the freezes withdraw)`,
  ].join("; ");
}

/** The timeout of a mutant run when none is given: three times the unchanged run, and 10 s. */
export function defaultTimeoutSeconds(baselineMs: number): number {
  return Math.ceil((3 * baselineMs) / 1000) + 10;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
