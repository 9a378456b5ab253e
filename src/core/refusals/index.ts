// The registry of refusals: every way a run is refused (exit 2), each under a stable
// kebab-case code a user can search for in docs/refusals.md. A refusal is raised by its code
// and the values its message names: `throw refusal("ledger-not-found", { path })`.

import type { ErrorDetails, FreezegateError } from "../errors.js";
import { CLI } from "./cli.js";
import { COVERAGE } from "./coverage.js";
import { type AnyRefusal, KINDS, type Refusal, type RefusalTable } from "./define.js";
import { DIFF } from "./diff.js";
import { FILES } from "./files.js";
import { GIT } from "./git.js";
import { LEDGER } from "./ledger.js";
import { MUTANTS } from "./mutants.js";
import { OUTPUT } from "./output.js";
import { SOURCES } from "./sources.js";
import { TESTS } from "./tests.js";

/** One area's table, with the heading its codes are listed under in docs/refusals.md. */
export interface RefusalArea<T extends RefusalTable = RefusalTable> {
  readonly title: string;
  readonly table: T;
}

const CODE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

type Merged<T extends readonly RefusalArea[]> = T extends readonly [
  RefusalArea<infer H>,
  ...infer R extends readonly RefusalArea[],
]
  ? H & Merged<R>
  : unknown;

/** The areas as one lookup; a code given twice, or not in kebab case, is refused at load. */
export function combineAreas<const T extends readonly RefusalArea[]>(areas: T): Merged<T> {
  const all: Record<string, AnyRefusal> = {};
  for (const { title, table } of areas) {
    for (const [code, refusal] of Object.entries(table)) {
      if (!CODE.test(code)) throw new Error(`refusal code "${code}" (${title}) is not kebab-case`);
      if (Object.hasOwn(all, code)) throw new Error(`refusal code "${code}" is defined twice`);
      all[code] = refusal;
    }
  }
  return all as Merged<T>;
}

export const AREAS = [
  { title: "Command line", table: CLI },
  { title: "Reports and output", table: OUTPUT },
  { title: "Ledger, records and gates", table: LEDGER },
  { title: "git", table: GIT },
  { title: "Files, JSON and configuration", table: FILES },
  { title: "The patch", table: DIFF },
  { title: "Coverage data", table: COVERAGE },
  { title: "Path mapping and Python sources", table: SOURCES },
  { title: "Mutants", table: MUTANTS },
  { title: "Tests, contexts and the frozen list", table: TESTS },
] as const satisfies readonly RefusalArea[];

export const REFUSALS = combineAreas(AREAS);
export type RefusalCode = keyof typeof REFUSALS & string;
type ValuesOf<C extends RefusalCode> = (typeof REFUSALS)[C] extends Refusal<infer V> ? V : never;

/** The error for refusal `code` with its values: the kind's class, its message, fix and code. */
export function refusal<C extends RefusalCode>(
  code: C,
  values: ValuesOf<C>,
  details: Pick<ErrorDetails, "cause"> = {},
): FreezegateError {
  const { kind, message, fix } = REFUSALS[code] as Refusal<ValuesOf<C>>;
  return new KINDS[kind](message(values), {
    code,
    ...(fix === undefined ? {} : { fix: fix(values) }),
    ...(details.cause === undefined ? {} : { cause: details.cause }),
  });
}
