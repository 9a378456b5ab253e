// What the pure audit needs of each judged file: its statements (as the runner reads them),
// the lines the data records it executing and by which tests, and the check that the data was
// recorded from this version of the file. Statements come first, so that the data gives the
// tests of the changed statements' lines only.

import type { ChangedFile, CoverageSource } from "../../core/model.js";
import type { PathMapping } from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import type { AuditFileInput } from "../../core/shadow-audit.js";
import { splitLines } from "../../core/stale.js";
import type {
  ChangedSource,
  ChangedSourceReader,
  DataTests,
  PatchFacts,
  Runner,
} from "../../runners/runner.js";
import { mark } from "../timing.js";
import { type AuditHooks, restIsShort } from "./hooks.js";

export interface FileInputsRequest {
  runner: Runner;
  reader: ChangedSourceReader;
  data: CoverageSource;
  tests: DataTests;
  audited: readonly ChangedFile[];
  /** The bytes of each audited file, as read for the patch's checks. */
  sources: ReadonlyMap<string, Buffer>;
  mapping: PathMapping;
  /** What the runner's guards know of the patch. */
  facts: PatchFacts;
  hooks: AuditHooks;
}

export interface FileInputs {
  inputs: AuditFileInput[];
  /** The text of each audited file (repository path -> text). */
  texts: Map<string, string>;
  /** The verdicts are long work still (onLongLoopsDone is the caller's to call after them). */
  longLoopsLeft: boolean;
}

interface JudgedFile {
  change: ChangedFile;
  text: string;
  /** The paths the data records it under: one, several roots' (shards), or none. */
  dataPaths: string[];
  source: ChangedSource;
}

export function readFileInputs(request: FileInputsRequest): FileInputs {
  const { data, mapping } = request;
  // One file may be recorded under several roots (shards from different machines, each
  // mapped with --path-map): its tests are those of all of them.
  const dataPathsOf = (path: string): string[] => {
    const first = mapping.toData.get(path);
    return first === undefined ? [] : (mapping.shared.get(path) ?? [first]);
  };
  mark("read + check sources");
  const files: JudgedFile[] = request.audited.map((change) => {
    const text = (request.sources.get(change.path) as Buffer).toString("utf8");
    const dataPaths = dataPathsOf(change.path);
    const source = request.reader.read({
      change,
      text,
      lines: splitLines(text),
      dataPaths,
      data,
    });
    return { change, text, dataPaths, source };
  });
  mark("tokenize");
  const executed = executedLinesOf(files, data);
  mark("executed lines");
  const modelled = files.filter(({ dataPaths, source }) =>
    dataPaths.some((p) => source.needsStatementModel(executed.get(p))),
  ).length;
  const longLoopsLeft = !restIsShort(modelled);
  if (!longLoopsLeft) request.hooks.onLongLoopsDone?.();
  // Changed modules in the data without one executed line anywhere (rare): did a test that
  // ran import them?
  const unexecuted = files
    .filter(
      ({ dataPaths, source }) =>
        source.runsOnImport &&
        dataPaths.length > 0 &&
        dataPaths.every((p) => executed.has(p) && (executed.get(p)?.size ?? 0) === 0),
    )
    .map(({ change }) => change.path);
  request.runner.guards.refuseUnexecuted(request.facts, unexecuted);
  const inputs = files.map(({ change, dataPaths, source }): AuditFileInput => {
    const lines = linesOfFile(dataPaths, executed);
    const statements = source.statements(lines, request.tests.index);
    if (lines !== null) {
      const evidence = source.staleEvidence(lines);
      if (evidence) {
        throw refusal("coverage-data-stale", { path: change.path, evidence });
      }
    }
    return { change, statements, executed: lines };
  });
  mark("staleness");
  return {
    inputs,
    texts: new Map(files.map(({ change, text }) => [change.path, text])),
    longLoopsLeft,
  };
}

/**
 * The data's executed lines of the judged files, with the tests of their changed statements'
 * lines. A file whose changed lines are all blank, comments or docstrings gets the same
 * verdicts whatever the data says: its rows are not read.
 */
function executedLinesOf(
  files: readonly JudgedFile[],
  data: CoverageSource,
): Map<string, Map<number, string[]>> {
  const wanted = new Map<string, ReadonlySet<number>>();
  for (const { dataPaths, source } of files) {
    for (const p of dataPaths) wanted.set(p, source.wantedLines);
  }
  return data.executedLines(
    files.flatMap(({ dataPaths }) => dataPaths).filter((p) => (wanted.get(p)?.size ?? 0) > 0),
    wanted,
  );
}

/** A file's executed lines, from every path the data records it under; null: unmeasured. */
export function linesOfFile(
  dataPaths: readonly string[],
  executed: ReadonlyMap<string, Map<number, string[]>>,
): Map<number, string[]> | null {
  if (dataPaths.length === 0) return null;
  if (dataPaths.length === 1) return executed.get(dataPaths[0] as string) ?? new Map();
  const out = new Map<number, string[]>();
  for (const lines of dataPaths.map((p) => executed.get(p))) {
    for (const [line, tests] of lines ?? []) {
      const before = out.get(line);
      out.set(line, before === undefined ? tests : [...new Set([...before, ...tests])]);
    }
  }
  return out;
}
