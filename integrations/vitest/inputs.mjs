// Counting how many distinct inputs each property test ran on, for the samples artifact
// (docs/samples-artifact.md, "What counts as a distinct input"). Runs in Vitest's workers.
//
// Two sources, per test:
// - explicit: every `record(value)` call made while the test runs, distinct by the value's
//   `util.inspect` text (JavaScript's repr);
// - generated: fast-check's runs that passed, distinct by fast-check's own notion of equal
//   runs, `fc.stringify` of the generated value (what its `skipEqualValues` and
//   `ignoreEqualValues` compare), counted through a fast-check global plugin
//   (`fc.installGlobalPlugin`, fast-check 4.10 and later). A run rejected by `fc.pre`, one
//   that failed or one fast-check interrupted is not counted.
// When a test records explicitly, only its explicit values count: the author said what an
// input is, and a property that ignores its arguments must not be credited with them.
//
// Inputs are kept as digests so that the main process can merge the sets of several workers
// (one test id can run in several projects): a count cannot be merged without claiming
// inputs twice.

import { createHash } from "node:crypto";
import { inspect } from "node:util";

const REALM = Symbol.for("freezegate.vitest.ledger");

/** The ledger's state in this worker realm, shared by the runner and `record()`. */
export function ledgerRealm() {
  globalThis[REALM] ??= { active: false, current: null, fastCheck: new WeakSet() };
  return globalThis[REALM];
}

export function digestOf(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

function add(entry, kind, digest) {
  entry[kind] ??= new Set();
  if (digest !== null) entry[kind].add(digest);
}

/** The text an input is told apart by: util.inspect in full, as repr is in Python. */
function reprOf(value) {
  try {
    return inspect(value, {
      depth: Number.POSITIVE_INFINITY,
      maxArrayLength: Number.POSITIVE_INFINITY,
      maxStringLength: Number.POSITIVE_INFINITY,
      breakLength: Number.POSITIVE_INFINITY,
    });
  } catch {
    // An input that cannot be shown cannot be told apart from another: leaving it out can
    // only lower the count, which makes the deposit gate stricter, never looser.
    return null;
  }
}

/**
 * Count `value` (by its util.inspect text) as one input of the test that is running. For
 * property tests whose inputs fast-check does not generate; in a test that calls it, only
 * recorded values count. Does nothing when no ledger is applied; outside a test it throws.
 */
export function record(value) {
  const realm = globalThis[REALM];
  if (!realm?.active) return;
  if (realm.current === null) {
    throw new Error(
      "freezegate's record() was called outside a running test: call it from the test body (or a beforeEach) whose inputs it counts",
    );
  }
  const text = reprOf(value);
  add(realm.current, "explicit", text === null ? null : digestOf(text));
}

/**
 * Installs the counting plugin into one fast-check module, once. Returns null, or why the
 * module cannot count (a fast-check without global plugins).
 */
export function countFastCheckRuns(fc) {
  const realm = ledgerRealm();
  if (typeof fc?.installGlobalPlugin !== "function" || typeof fc.stringify !== "function") {
    return `fast-check ${fc?.__version ?? "(unknown version)"} has no global plugins (fast-check 4.10 and later have them): its runs are not counted, call record() for each input`;
  }
  if (realm.fastCheck.has(fc.installGlobalPlugin)) return null;
  realm.fastCheck.add(fc.installGlobalPlugin);
  const stringify = fc.stringify;
  // One plugin instance per fc.assert / fc.check call: its runs belong to the test running
  // when the call started (tests run one at a time under freezegate's runner).
  fc.installGlobalPlugin(() => {
    const entry = realm.current;
    if (entry === null) return {};
    return {
      decorateRun: (nested) => (value) => {
        // Taken before the predicate runs: it may change the value.
        let key;
        try {
          key = digestOf(stringify(value));
        } catch {
          key = null;
        }
        const out = nested(value);
        // null is fast-check's "the predicate passed"; a precondition failure, an
        // interruption or a failure is an object.
        if (out !== null && typeof out?.then === "function") {
          return out.then((done) => {
            if (done === null) add(entry, "auto", key);
            return done;
          });
        }
        if (out === null) add(entry, "auto", key);
        return out;
      },
    };
  });
  return null;
}
