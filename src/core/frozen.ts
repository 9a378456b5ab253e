// Frozen tests: which test ids the gate no longer listens to. Three formats carry them:
//   {"frozen": [...]}                       a quarantine list, and a properties file
//   {"freezes": [{"test_id": ...}, ...]}    the freeze ledger (schema 1, and ours with "version")
// Ids match exactly. An entry containing "*" is a glob ("*" = any run of characters; every
// other character is literal, so "[p1]" in a parametrized id stays literal), unless it is
// itself a test id in the data: "test_match[*.py]", copied from `pytest --collect-only -q`,
// freezes that case and not its siblings. There is no suffix ("endswith") matching: it would
// freeze tests nobody named.

import type { FreezegateError } from "./errors.js";
import { oneEditMatches } from "./near-names.js";
import { refusal } from "./refusals/index.js";

export type FrozenFormat = "quarantine" | "ledger";

export interface FrozenEntry {
  /** As written in the file. */
  pattern: string;
  /** Holds "*": a glob, unless the data has a test of exactly this id. */
  isGlob: boolean;
}

export interface FrozenList {
  format: FrozenFormat;
  entries: FrozenEntry[];
}

/** Parse the JSON value of a frozen-test file. `label` names the file in messages. */
export function parseFrozenList(value: unknown, label: string): FrozenList {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw malformed(label, "the top level is not a JSON object");
  }
  const record = value as Record<string, unknown>;
  const hasFrozen = "frozen" in record;
  const hasFreezes = "freezes" in record;
  if (hasFrozen && hasFreezes) {
    throw malformed(
      label,
      'it has both "frozen" and "freezes"; freezegate cannot tell which is meant',
    );
  }
  if (hasFrozen) {
    const list = record.frozen;
    if (!Array.isArray(list)) throw malformed(label, '"frozen" is not an array');
    return {
      format: "quarantine",
      entries: dedupe(
        list.map((item, i) => {
          if (typeof item !== "string" || item.trim() === "") {
            throw malformed(label, `"frozen"[${i}] is not a non-empty string`);
          }
          return item;
        }),
      ),
    };
  }
  if (hasFreezes) {
    const list = record.freezes;
    if (!Array.isArray(list)) throw malformed(label, '"freezes" is not an array');
    return {
      format: "ledger",
      entries: dedupe(
        list.map((item, i) => {
          const id =
            typeof item === "object" && item !== null
              ? (item as Record<string, unknown>).test_id
              : undefined;
          if (typeof id !== "string" || id.trim() === "") {
            throw malformed(label, `"freezes"[${i}].test_id is missing or not a non-empty string`);
          }
          return id;
        }),
      ),
    };
  }
  throw malformed(label, 'it has neither "frozen" (a list of test ids) nor "freezes" (a ledger)');
}

function malformed(label: string, why: string): FreezegateError {
  return refusal("frozen-list-malformed", { label, why });
}

/**
 * A frozen list from test ids as written (e.g. a ledger's freezes), with the same rules as a
 * parsed file: the witness gate asks "is this test frozen" exactly as the audit does.
 */
export function frozenListOf(ids: Iterable<string>): FrozenList {
  return { format: "ledger", entries: dedupe([...ids]) };
}

function dedupe(ids: string[]): FrozenEntry[] {
  return [...new Set(ids)].map((pattern) => ({ pattern, isGlob: pattern.includes("*") }));
}

/** The regular expression a frozen "*" entry matches test ids with (a test runner applies it too). */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

export interface FrozenResolution {
  /** Every test id in the data that the list freezes. */
  frozenTests: Set<string>;
  /** Entries that match no test in the data (a typo here hides shadow). */
  unresolved: string[];
  /** entry pattern -> the test ids it matched. */
  matches: Map<string, string[]>;
}

/** How the frozen list asks the data about tests (a ContextIndex, or a plain set in tests). */
export interface TestLookup {
  hasTest(id: string): boolean;
  readonly testIds: Iterable<string>;
  /** Optional: told every entry first, so that `hasTest` can ask the data once for all. */
  preloadTests?(ids: readonly string[]): void;
}

/** Match the list against the tests present in the coverage data. */
export function resolveFrozen(list: FrozenList, tests: TestLookup): FrozenResolution {
  const frozenTests = new Set<string>();
  const unresolved: string[] = [];
  const matches = new Map<string, string[]>();
  let all: string[] | null = null;
  // Every entry may name a test exactly (a parametrized id may hold "*"): asked all at once.
  tests.preloadTests?.(list.entries.map((e) => e.pattern));
  for (const entry of list.entries) {
    let matched: string[];
    if (entry.isGlob && !tests.hasTest(entry.pattern)) {
      const re = globToRegExp(entry.pattern);
      all ??= [...tests.testIds];
      matched = all.filter((id) => re.test(id));
    } else {
      matched = tests.hasTest(entry.pattern) ? [entry.pattern] : [];
    }
    matches.set(entry.pattern, matched);
    if (matched.length === 0) unresolved.push(entry.pattern);
    for (const id of matched) frozenTests.add(id);
  }
  return { frozenTests, unresolved, matches };
}

/** A TestLookup over a plain set of ids. */
export function lookupOf(ids: Iterable<string>): TestLookup {
  const set = new Set(ids);
  return { hasTest: (id) => set.has(id), testIds: set };
}

/** Ids that name a group of tests (not a test), and the glob that freezes the group's tests. */
export interface IdGroup {
  /** What follows the group's id in its tests' ids: "[" (pytest's cases), " > " (a suite's). */
  after: string;
  /** What the group's id takes to freeze its tests: "[*]", " > *". */
  glob: string;
  /** What such an id names: "a parametrized test", "a suite, not a test". */
  is: string;
  /** What the glob freezes: "its cases", "its tests". */
  members: string;
}

/**
 * A runner's words on its test ids, for the fixes the core writes (RunnerAdvice holds them):
 * the examples are pytest's and Vitest's.
 */
export interface IdWords {
  /** The runner's name: "pytest", "Vitest". */
  runner: string;
  /** Its ids, as a noun: "exact pytest node ids (as in `pytest --collect-only -q`)". */
  exactNames: string;
  /** How its tests are listed, to end "list them ...": "as `pytest --collect-only -q` prints them". */
  listed: string;
  /** What leaves a test that exists out of a run: "deselected with -k, -m or --deselect". */
  leftOut: string;
  /** Ids of groups of tests, in the order a fix prefers them. */
  groups: readonly IdGroup[];
  /** Its test ids, in a sentence: "node ids", "test ids". */
  ids: string;
  /** The directory they are relative to: "pytest's rootdir", "the Vitest root". */
  root: string;
  /** The runner's own word for it: "its rootdir", "its root". */
  itsRoot: string;
}

/**
 * The fix for frozen entries that match no test, as the audit and doctor both give it: an id
 * that names a group of tests (pytest: a parametrized test, a class; Vitest: a suite, a file)
 * gets the glob that freezes them all; a typo the test it was meant for; anything else the
 * general advice, in the runner's words.
 */
export function unresolvedFix(
  unresolved: readonly string[],
  testIds: Iterable<string>,
  words: IdWords,
): string {
  const exact = unresolved.filter((id) => !id.includes("*"));
  // The first group (in the runner's order) an id names, with that id.
  const found: Array<string | undefined> = words.groups.map(() => undefined);
  for (const test of testIds) {
    words.groups.forEach((group, i) => {
      found[i] ??= exact.find((id) => test.startsWith(`${id}${group.after}`));
    });
    if (found[0] !== undefined) break;
  }
  const at = found.findIndex((id) => id !== undefined);
  const group = words.groups[at];
  const id = found[at];
  if (group !== undefined && id !== undefined) {
    return `"${id}" is ${group.is}: freeze all ${group.members} with "${id}${group.glob}", or list them ${words.listed}`;
  }
  // A typo: the ids the message names (the first few), each against every test once.
  const typos = oneEditMatches(exact.slice(0, SHOWN_UNRESOLVED), testIds);
  const [typo] = typos;
  if (typo !== undefined) {
    return `did you mean "${typo[1]}" (the data's test one character from "${typo[0]}")? Frozen ids are ${words.exactNames}`;
  }
  return `use ${words.exactNames}; a frozen test that exists but did not run (${words.leftOut}) must run, its lines are unknown otherwise; pass --allow-unresolved only for tests that no longer exist`;
}

/** How many unresolved ids a message names (sample's default), and so are looked at. */
const SHOWN_UNRESOLVED = 3;

/** Why frozen ids match no test when they and the data's ids start in different directories. */
export interface TestRootMismatch {
  /** The cause, to follow the message that the ids match no test. */
  message: string;
  fix: string;
}

/**
 * Frozen ids that match no test only because they and the data's ids are relative to
 * different directories: each is a data id with a directory in front ("tests/t.py::test_a"
 * frozen, "t.py::test_a" in the data: pytest ran with its rootdir in tests/), or the other
 * way round. Which side is off is read from the files (`exists`, a repository path): the
 * data's ids name files under `prefix` (the test root, "" or "dir/") when the test root is
 * right; else the directory they are under is the runner's root (pytest's rootdir), and the
 * fix names it as --test-root, in the runner's words. Null when no unresolved id is so
 * explained, or when both readings name files that exist (then the frozen id names another
 * test). One pass over the tests.
 */
export function testRootMismatch(
  unresolved: readonly string[],
  testIds: ReadonlySet<string>,
  prefix: string,
  exists: (repoPath: string) => boolean,
  words: IdWords,
): TestRootMismatch | null {
  const exact = unresolved.filter((id) => !id.includes("*") && id.includes("::"));
  if (exact.length === 0) return null;
  // Where a node id's file part has a "/".
  const slashes = (id: string): number[] => {
    const end = id.indexOf("::");
    const out: number[] = [];
    for (let i = id.indexOf("/"); i >= 0 && i < end; i = id.indexOf("/", i + 1)) out.push(i);
    return out;
  };
  type Pair = { frozen: string; data: string; dir: string; frozenLonger: boolean };
  const pairs: Pair[] = [];
  for (const id of exact) {
    for (const i of slashes(id)) {
      const rest = id.slice(i + 1);
      if (testIds.has(rest)) {
        pairs.push({ frozen: id, data: rest, dir: id.slice(0, i + 1), frozenLonger: true });
        break;
      }
    }
  }
  if (pairs.length === 0) {
    const wanted = new Set(exact);
    const matched = new Set<string>();
    for (const test of testIds) {
      for (const i of slashes(test)) {
        const rest = test.slice(i + 1);
        if (wanted.has(rest) && !matched.has(rest)) {
          matched.add(rest);
          pairs.push({ frozen: rest, data: test, dir: test.slice(0, i + 1), frozenLonger: false });
          break;
        }
      }
    }
  }
  const [first] = pairs;
  if (first === undefined) return null;
  const same = pairs.filter((p) => p.dir === first.dir && p.frozenLonger === first.frozenLonger);
  const fileOf = (id: string) => id.slice(0, id.indexOf("::"));
  const dataHere = exists(prefix + fileOf(first.data));
  if (dataHere && exists(prefix + fileOf(first.frozen))) return null;
  // Where the data's ids name files: the test root, or the directory the frozen ids add to
  // it, or the test root without the directory the data's ids add.
  const dataRoot = dataHere
    ? prefix
    : [
        first.frozenLonger ? prefix + first.dir : null,
        !first.frozenLonger && prefix.endsWith(first.dir)
          ? prefix.slice(0, -first.dir.length)
          : null,
      ].find((dir) => dir !== null && exists(dir + fileOf(first.data)));
  if (dataRoot === undefined || dataRoot === null) return null;
  const at = (dir: string) => (dir === "" ? "at the repository root" : `in ${dir}`);
  const testRootFlag = (dir: string) => `--test-root ${dir.replace(/\/$/, "")}`;
  const how = first.frozenLonger ? `without "${first.dir}"` : `with "${first.dir}" in front`;
  const which =
    same.length < exact.length
      ? `${same.length} of these tests`
      : same.length === 1
        ? "this test"
        : "these tests";
  const said = `the data names ${which} ${how} ("${first.data}" for "${first.frozen}")`;
  const asData = `write the frozen ids as the data names them ("${first.data}")`;
  if (dataRoot !== prefix) {
    return {
      message: `${said}: ${words.runner} ran with ${words.itsRoot} ${at(dataRoot)}, and ${words.ids} are relative to it`,
      fix: `${dataRoot === "" ? `leave out --test-root (${words.root} is the repository root)` : `pass ${testRootFlag(dataRoot)} (${words.root})`} and ${asData}; or run ${words.runner} with ${words.itsRoot} ${at(prefix)}, where its ids are the frozen ids`,
    };
  }
  // The rootdir the frozen ids were written for: the test root with the directory the data
  // adds, or without the one the frozen ids add.
  const theirs = first.frozenLonger
    ? prefix.endsWith(first.dir)
      ? prefix.slice(0, -first.dir.length)
      : null
    : prefix + first.dir;
  return {
    message: `${said}: ${words.ids} are relative to ${words.root}, ${prefix === "" ? "the repository root" : `the test root ${prefix}`}`,
    fix: `${asData}${theirs === null ? "" : `; or run ${words.runner} with ${words.itsRoot} ${at(theirs)} and ${theirs === "" ? "leave out --test-root" : `pass ${testRootFlag(theirs)}`}`}`,
  };
}
