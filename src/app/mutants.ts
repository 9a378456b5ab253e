// Mutant runs as an application service: the engine of `impact --mutants` and `calibrate
// --mutants`, shaped so that any command with mutation sites (statements and the tests that
// execute each) can run it. Steps: the runner's mutator makes the mutants of the sites'
// statements; a seeded sample keeps at most `max` (each group of sites its share); the tests
// run unchanged once in a temporary copy of the work tree (the baseline: a test that fails
// there cannot judge anything, and its time sets the default timeout); a probe per file shows
// the tests import the copy's module, not an installed one; then each mutant is written into a
// copy, only its statement's tests run, and the original is put back. `jobs` copies run side
// by side. The user's work tree and .git are never written; the copies are removed however the
// run ends (an error, an interrupt through `signal`).

import { join } from "node:path";
import { listRepoFiles } from "../adapters/git-history.js";
import { readTextFile } from "../adapters/repo-files.js";
import { runInShell, shellLine } from "../adapters/shell-runs.js";
import {
  clearOutcomes,
  copyDirectory,
  fillWorkCopy,
  makeWorkCopy,
  readCopyFile,
  removeWorkCopy,
  takeOutcomes,
  type WorkCopy,
  writeCopyFile,
} from "../adapters/work-copies.js";
import { sample as sampleWords } from "../core/listing.js";
import {
  defaultTimeoutSeconds,
  type Judgment,
  judgeMutant,
  killedFor,
  type LineEdit,
  type Mutant,
  type MutationSite,
  type Outcome,
  outcomeOf,
  readOutcomes,
  type SelectedTest,
  sampleMutants,
  splice,
} from "../core/mutants.js";
import { refusal } from "../core/refusals/index.js";
import type { RunnerMutation } from "../runners/runner.js";

export interface MutantsRequest {
  root: string;
  /** The directory the tests are run from, relative to the root ("" for the root). */
  cwd: string;
  /** The user's command that runs the tests, without test ids. */
  command: string;
  /** The interpreter the mutator runs on. */
  python: string;
  env: NodeJS.ProcessEnv;
  mutation: RunnerMutation;
  /** The test root as a path prefix ("" or "dir/"): the data's test ids are relative to it. */
  prefix: string;
  sites: readonly MutationSite[];
  /** At most this many mutants run (a seeded sample of them). */
  max: number;
  seed: number;
  /** How many copies run mutants side by side. */
  jobs: number;
  /** Each mutant run's limit; null: defaultTimeoutSeconds of the baseline. */
  timeoutSeconds: number | null;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: MutantsProgress) => void) | undefined;
}

export interface MutantsProgress {
  stage: "mutate" | "baseline" | "probe" | "mutants";
  done: number;
  total: number;
  /** The file of the latest step. */
  path: string | null;
}

export interface MutantResult extends Judgment {
  mutant: Mutant;
  /** Its site's group ("" for none). */
  group: string;
  /** The tests that judged it: its statement's, less those that failed unchanged. */
  tests: SelectedTest[];
}

export interface LeftOutTest extends SelectedTest {
  /** Its outcome unchanged (null: it did not run). */
  outcome: Outcome | null;
}

export interface MutantsRun {
  /** How many mutants the mutator made of the sites' statements, before the sample. */
  made: number;
  /** Sites' statements that hold nothing to mutate. */
  unmutable: number;
  /** Files with sites in no language the runner mutates, sorted. */
  notMutated: string[];
  /** The sample: files by path, each file's mutants in the mutator's order. */
  results: MutantResult[];
  /** Tests that did not pass unchanged, left out of every judgment; sorted by id. */
  leftOut: LeftOutTest[];
  /** The limit each mutant run had, in seconds; null when no test ran. */
  timeoutSeconds: number | null;
}

/** The run was interrupted (`signal` aborted); every copy is removed. */
export class MutantsInterrupted extends Error {
  constructor() {
    super("the mutant run was interrupted");
    this.name = "MutantsInterrupted";
  }
}

/** The baseline's own limit: it runs every selected test, so no mutant's timeout fits it. */
const BASELINE_TIMEOUT_MS = 60 * 60 * 1000;

/** A mutant with the text of its file once it is written in. */
interface Planned {
  mutant: Mutant;
  tests: SelectedTest[];
  /** Its site's group ("" for none): the sample keeps each group's share. */
  group: string;
  mutated: string;
}

export async function runMutants(request: MutantsRequest): Promise<MutantsRun> {
  const { mutation } = request;
  const notMutated = [
    ...new Set(request.sites.filter((s) => !mutation.accepts(s.path)).map((s) => s.path)),
  ].sort();
  const made = await makeMutants(request);
  const planned = sampleMutants(made.mutants, request.max, request.seed, (p) => p.group);
  const base = {
    made: made.mutants.length,
    unmutable: made.unmutable,
    notMutated,
  };
  const union = uniqueTests(planned.flatMap((p) => p.tests));
  if (union.length === 0) {
    const results = planned.map((p) => ({
      mutant: p.mutant,
      group: p.group,
      tests: [],
      ...judgeMutant([], null),
    }));
    return { ...base, results, leftOut: [], timeoutSeconds: null };
  }
  const files = await listRepoFiles(request.root);
  const copies: WorkCopy[] = [];
  const newCopy = () => {
    interrupted(request.signal);
    const copy = makeWorkCopy();
    copies.push(copy);
    fillWorkCopy(copy, request.root, files);
    return copy;
  };
  try {
    const first = newCopy();
    request.onProgress?.({ stage: "baseline", done: 0, total: 1, path: null });
    const { leftOut, ms } = await runBaseline(request, first, union);
    const timeoutSeconds = request.timeoutSeconds ?? defaultTimeoutSeconds(ms);
    const left = new Set(leftOut.map((t) => t.id));
    const judged = planned.map((p) => ({ ...p, tests: p.tests.filter((t) => !left.has(t.id)) }));
    while (copies.length < Math.min(request.jobs, judged.length)) newCopy();
    await runProbes(request, copies, judged, made.probes, timeoutSeconds);
    const results = await runEach(request, copies, judged, timeoutSeconds);
    return { ...base, results, leftOut, timeoutSeconds };
  } finally {
    for (const copy of copies) removeWorkCopy(copy);
  }
}

/** Throws MutantsInterrupted once `signal` has aborted. */
function interrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MutantsInterrupted();
}

/**
 * The mutants of every site the runner mutates, files by path, each checked against its file's
 * text on disk, and each file's probe.
 */
async function makeMutants(
  request: MutantsRequest,
): Promise<{ mutants: Planned[]; probes: Map<string, LineEdit>; unmutable: number }> {
  const byFile = new Map<string, MutationSite[]>();
  for (const site of request.sites) {
    if (!request.mutation.accepts(site.path)) continue;
    byFile.set(site.path, [...(byFile.get(site.path) ?? []), site]);
  }
  const paths = [...byFile.keys()].sort();
  const mutants: Planned[] = [];
  const probes = new Map<string, LineEdit>();
  let unmutable = 0;
  for (const [done, path] of paths.entries()) {
    request.onProgress?.({ stage: "mutate", done, total: paths.length, path });
    const sites = byFile.get(path) as MutationSite[];
    let answer: Awaited<ReturnType<RunnerMutation["mutate"]>>;
    try {
      answer = await request.mutation.mutate({
        root: request.root,
        path,
        lines: sites.map((s) => s.line),
        python: request.python,
        env: request.env,
        signal: request.signal,
      });
    } catch (error) {
      interrupted(request.signal);
      throw error;
    }
    const text = readTextFile(join(request.root, path), `source file ${path}`);
    const siteAt = new Map(sites.map((s) => [s.line, s]));
    for (const mutant of answer.mutants) {
      const site = siteAt.get(mutant.line);
      mutants.push({
        mutant,
        tests: site?.tests ?? [],
        group: site?.group ?? "",
        mutated: spliced(text, mutant, path, `the mutant at line ${mutant.line}`),
      });
    }
    spliced(text, answer.probe, path, "the probe");
    probes.set(path, answer.probe);
    unmutable += answer.unmutable;
  }
  return { mutants, probes, unmutable };
}

function spliced(text: string, edit: LineEdit, path: string, what: string): string {
  const out = splice(text, edit);
  if (out === null) {
    throw refusal("mutator-output-unreadable", {
      path,
      why: `${what} replaces lines ${edit.startLine}-${edit.endLine}, which the file does not have`,
    });
  }
  return out;
}

function uniqueTests(tests: readonly SelectedTest[]): SelectedTest[] {
  const byId = new Map(tests.map((t) => [t.id, t]));
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

interface TestRun {
  timedOut: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  tail: string;
  /** The outcomes file's text, null when the run left none. */
  outcomesText: string | null;
  /** Its outcomes, null when there is no file or it cannot be read. */
  outcomes: ReadonlyMap<string, Outcome> | null;
}

/** Runs `tests` in the copy as it is now. */
async function runTests(
  request: MutantsRequest,
  copy: WorkCopy,
  tests: readonly SelectedTest[],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<TestRun> {
  clearOutcomes(copy);
  const result = await runInShell({
    command: request.command,
    args: testArguments(request, tests),
    cwd: copyDirectory(copy, request.cwd),
    env: request.mutation.environment(copy.outcomes, request.env),
    timeoutMs,
    signal,
  });
  if (result.aborted) throw new MutantsInterrupted();
  const outcomesText = takeOutcomes(copy);
  return {
    ...result,
    outcomesText,
    outcomes: outcomesText === null ? null : readOutcomes(outcomesText),
  };
}

function testArguments(request: MutantsRequest, tests: readonly SelectedTest[]): string[] {
  return request.mutation.testArguments(
    tests.map((t) => t.id),
    { prefix: request.prefix, cwd: request.cwd },
  );
}

/**
 * Every selected test, unchanged, once. Refused when the command did not run them (no
 * outcomes, or an exit status other than passed or failed tests); a test that did not pass is
 * left out of the judgments.
 */
async function runBaseline(
  request: MutantsRequest,
  copy: WorkCopy,
  tests: readonly SelectedTest[],
): Promise<{ leftOut: LeftOutTest[]; ms: number }> {
  const run = await runTests(request, copy, tests, BASELINE_TIMEOUT_MS, request.signal);
  const why = run.timedOut
    ? "did not end within an hour"
    : run.code === null
      ? `was ended by ${run.signal ?? "a signal"}`
      : run.code !== 0 && run.code !== 1
        ? `exited with code ${run.code}`
        : run.outcomesText === null
          ? "left no outcomes (it must run the tests, with the arguments freezegate adds)"
          : run.outcomes === null
            ? "left outcomes freezegate cannot read"
            : null;
  if (why !== null || run.outcomes === null) {
    throw refusal("mutants-baseline-failed", {
      command: shortened(shellLine(request.command, testArguments(request, tests))),
      why: why ?? "left no outcomes",
      tail: lastLines(run.tail),
    });
  }
  const outcomes = run.outcomes;
  const leftOut = tests
    .filter((t) => killedFor(t.id, outcomes))
    .map((t) => ({ ...t, outcome: outcomeOf(t.id, outcomes) }));
  return { leftOut, ms: run.ms };
}

function shortened(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** The last few lines of a run's output, as one line. */
function lastLines(tail: string, count = 4): string {
  const lines = tail
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return shortened(lines.slice(-count).join(" / "), 500);
}

/**
 * Per file, its tests with its module made to fail on import: every one must fail. One that
 * passes imports another copy of the module, and every mutant of it would survive.
 */
async function runProbes(
  request: MutantsRequest,
  copies: readonly WorkCopy[],
  judged: readonly Planned[],
  probes: ReadonlyMap<string, LineEdit>,
  timeoutSeconds: number,
): Promise<void> {
  const paths = [...new Set(judged.map((p) => p.mutant.path))].filter((path) =>
    judged.some((p) => p.mutant.path === path && p.tests.length > 0),
  );
  let done = 0;
  await inPool(copies, paths, request.signal, async (copy, path, signal) => {
    const tests = uniqueTests(judged.filter((p) => p.mutant.path === path).flatMap((p) => p.tests));
    const original = readCopyFile(copy, path);
    const probe = probes.get(path) as LineEdit;
    writeCopyFile(copy, path, spliced(original.toString("utf8"), probe, path, "the probe"));
    let run: TestRun;
    try {
      run = await runTests(request, copy, tests, timeoutSeconds * 1000, signal);
    } finally {
      writeCopyFile(copy, path, original);
    }
    const outcomes = run.outcomes;
    const passing = run.timedOut ? [] : tests.filter((t) => !killedFor(t.id, outcomes));
    if (run.timedOut || passing.length > 0) {
      const what = run.timedOut
        ? `its tests did not end within ${timeoutSeconds} s`
        : `${sampleWords(passing.map((t) => t.id))} still passed`;
      throw refusal("mutants-other-copy", { path, what });
    }
    request.onProgress?.({ stage: "probe", done: ++done, total: paths.length, path });
  });
}

/** Every planned mutant, judged; in the plan's order whatever the jobs. */
async function runEach(
  request: MutantsRequest,
  copies: readonly WorkCopy[],
  judged: readonly Planned[],
  timeoutSeconds: number,
): Promise<MutantResult[]> {
  const results: MutantResult[] = new Array(judged.length);
  let done = 0;
  const indexes = judged.map((_, i) => i);
  request.onProgress?.({ stage: "mutants", done, total: judged.length, path: null });
  await inPool(copies, indexes, request.signal, async (copy, i, signal) => {
    const { mutant, tests, group, mutated } = judged[i] as Planned;
    let judgment: Judgment;
    if (tests.length === 0) {
      judgment = judgeMutant(tests, null);
    } else {
      const original = readCopyFile(copy, mutant.path);
      writeCopyFile(copy, mutant.path, mutated);
      let run: TestRun;
      try {
        run = await runTests(request, copy, tests, timeoutSeconds * 1000, signal);
      } finally {
        writeCopyFile(copy, mutant.path, original);
      }
      judgment = judgeMutant(
        tests,
        run.timedOut ? { timedOut: true } : { timedOut: false, outcomes: run.outcomes },
      );
    }
    results[i] = { mutant, group, tests, ...judgment };
    request.onProgress?.({
      stage: "mutants",
      done: ++done,
      total: judged.length,
      path: mutant.path,
    });
  });
  return results;
}

/**
 * `work` on every item, one copy per job, each job taking the next item. The first error stops
 * the others (their runs are killed) and is thrown once all have stopped; an abort of `signal`
 * does the same and throws MutantsInterrupted.
 */
async function inPool<T>(
  copies: readonly WorkCopy[],
  items: readonly T[],
  signal: AbortSignal | undefined,
  work: (copy: WorkCopy, item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const inner = new AbortController();
  const stop = () => inner.abort();
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) inner.abort();
  let next = 0;
  let failure: { error: unknown } | null = null;
  try {
    await Promise.all(
      copies.map(async (copy) => {
        while (failure === null && !inner.signal.aborted && next < items.length) {
          const item = items[next++] as T;
          try {
            await work(copy, item, inner.signal);
          } catch (error) {
            failure ??= { error };
            inner.abort();
          }
        }
      }),
    );
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  interrupted(signal);
  if (failure !== null) throw (failure as { error: unknown }).error;
}
