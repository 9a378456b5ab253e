// The freeze ledger inside Vitest's workers: a mixin over freezegate's test runner
// (runner.mjs), because Vitest takes one `test.runner`.
//
// The main process (reporter.mjs, with ledger.mjs) reads the ledger with freezegate's own
// reader, leaves out expired freezes, and hands the freezes in force to every worker through
// Vitest's provided context: each freeze's test id, and for a `*` glob the regular expression
// freezegate's matcher builds from it. Per test file, after collection, the runner names each
// test as the recorder does (ids.mjs) and matches it: an exact entry first, else the first glob
// in the ledger's order that is not itself a test id of the file. Then:
// - mode `run`: a frozen test runs; if it fails, its result becomes a pass (as `test.fails`
//   turns an expected failure into one) and its errors go to the file's meta, so neither the
//   run's exit code nor `--bail` counts it, and the reporter's summary shows the failure;
// - mode `skip`: a frozen test is skipped before it runs.
// What happened to every test (its declared mode, whether a filter left it out, whether it
// started, its result, its counted inputs) goes to the main process in the file task's meta.
// The reporter decides the applied record from it, matching ids again with freezegate's
// matcher over the whole run.

import * as vitest from "vitest";
import { testFilePath, testIdOf } from "./ids.mjs";
import { countFastCheckRuns, ledgerRealm } from "./inputs.mjs";
import { LEDGER_META_KEY, PROVIDE_KEY } from "./keys.mjs";

const realm = ledgerRealm();

function allTests(task, out = []) {
  for (const t of task.tasks ?? []) {
    if (t.type === "test") out.push(t);
    else allTests(t, out);
  }
  return out;
}

/** The mode the source gave a test: its own `skip`/`todo`, or that of a suite around it. */
function declaredMode(test, declared) {
  for (let t = test; t; t = t.suite) {
    const mode = declared.get(t);
    if (mode === "skip" || mode === "todo") return mode;
  }
  return "run";
}

function firstLine(error) {
  const text = String(error?.message ?? error ?? "failed")
    .split("\n")
    .find((l) => l.trim() !== "");
  const line = (text ?? "failed").trim();
  return line.length <= 120 ? line : `${line.slice(0, 117)}...`;
}

/** Vitest 4 keeps the modules a file loaded in `evaluatedModules`, 3.2 in its executor. */
function loadedModuleIds(runner) {
  const v4 = runner.workerState?.evaluatedModules?.idToModuleMap;
  if (v4) return [...v4.keys()];
  const v3 = runner.__vitest_executor?.moduleCache;
  return v3 ? [...v3.keys()] : [];
}

const FAST_CHECK = /[\\/]node_modules[\\/](?:fast-check|@fast-check[\\/]vitest)[\\/]/;

/** The fast-check modules the test file loaded, as the file sees them. */
async function loadedFastChecks(runner) {
  const found = [];
  for (const id of loadedModuleIds(runner)) {
    if (!FAST_CHECK.test(id)) continue;
    // Already evaluated: importing it again returns the instance the tests use.
    const ns = runner.moduleRunner
      ? await runner.moduleRunner.import(id)
      : await runner.__vitest_executor.executeId(id);
    // @fast-check/vitest re-exports the fast-check it runs its properties with as `fc`.
    const fc = typeof ns?.assert === "function" && typeof ns?.property === "function" ? ns : ns?.fc;
    if (fc && !found.includes(fc)) found.push(fc);
  }
  return found;
}

export function withLedger(Base) {
  return class FreezegateLedgerRunner extends Base {
    ledgerFiles = new Map(); // file task -> { declared, entries: Map(test -> entry) }
    ledger = null;

    onBeforeCollect(paths) {
      const provided = typeof vitest.inject === "function" ? vitest.inject(PROVIDE_KEY) : undefined;
      if (provided === undefined) {
        throw new Error(
          "freezegate's Vitest runner runs without freezegate's reporter, which applies the freeze ledger and writes the data: add integrations/vitest/reporter.mjs of freezegate to test.reporters (next to \"default\")",
        );
      }
      this.ledger = provided.active
        ? {
            ...provided,
            rules: provided.rules.map((r) => ({
              ...r,
              regex: r.glob ? new RegExp(r.glob.source, r.glob.flags) : null,
            })),
          }
        : null;
      realm.active = this.ledger !== null;
      return super.onBeforeCollect(paths);
    }

    onCollectStart(file) {
      const result = super.onCollectStart?.(file);
      if (this.ledger) {
        // The modes the source declared, before Vitest's filters (-t, .only, a line number)
        // turn the tests they leave out into skipped ones: a skip a filter made is a
        // deselection, not a skip. Vitest pushes each collected suite or test, built with its
        // declared mode, into the file's task list; a non-enumerable `push` sees them.
        const declared = new Map();
        const note = (task) => {
          declared.set(task, task.mode);
          for (const t of task.tasks ?? []) note(t);
        };
        Object.defineProperty(file.tasks, "push", {
          configurable: true,
          enumerable: false,
          writable: true,
          value(...items) {
            for (const item of items) note(item);
            return Array.prototype.push.apply(this, items);
          },
        });
        this.ledgerFiles.set(file, { declared, entries: new Map(), notes: [] });
      }
      return result;
    }

    async onCollected(files) {
      if (this.ledger) {
        for (const file of files) this.matchFile(file);
        const state = this.ledgerFiles.get(files[0]);
        for (const fc of await loadedFastChecks(this)) {
          const why = countFastCheckRuns(fc);
          if (why && state && !state.notes.includes(why)) state.notes.push(why);
        }
      }
      return super.onCollected?.(files);
    }

    matchFile(file) {
      const state = this.ledgerFiles.get(file);
      if (!state) return;
      delete file.tasks.push;
      const root = this.config.root;
      const tests = allTests(file);
      const ids = new Set(tests.map((t) => testIdOf(root, t)));
      state.collected = file.result?.state !== "fail" || tests.length > 0;
      for (const test of tests) {
        const id = testIdOf(root, test);
        const declared = declaredMode(test, state.declared);
        const rule = this.match(id, ids);
        const entry = {
          id,
          taskId: test.id,
          declared,
          // Left out by a filter: declared to run, skipped after collection.
          filtered: declared === "run" && test.mode !== "run" && test.mode !== "queued",
          frozen: rule ? rule.index : null,
          fails: test.fails === true,
          started: false,
          state: null,
          failure: null,
          ledgerSkipped: false,
        };
        state.entries.set(test, entry);
        if (
          rule &&
          this.ledger.mode === "skip" &&
          (test.mode === "run" || test.mode === "queued")
        ) {
          test.mode = "skip";
          entry.ledgerSkipped = true;
        }
      }
      // Vitest does not call onAfterRunSuite for a file it skips whole (a name filter that
      // matches none of its tests) or that failed to collect: what the ledger knows now is
      // then all there is.
      file.meta[LEDGER_META_KEY] = this.fileReport(file, state);
    }

    /** The freeze in force for a test id: an exact entry, else the first glob in ledger order. */
    match(id, fileIds) {
      const rules = this.ledger.rules;
      const exact = rules.find((r) => r.pattern === id);
      if (exact) return exact;
      // A "*" entry that is itself a test id names that test only, as freezegate reads it.
      return rules.find((r) => r.regex && !fileIds.has(r.pattern) && r.regex.test(id)) ?? null;
    }

    entryOf(test) {
      return this.ledgerFiles.get(test.file)?.entries.get(test) ?? null;
    }

    async onBeforeRunTask(test) {
      await super.onBeforeRunTask(test);
      const entry = this.ledger ? this.entryOf(test) : null;
      if (entry && (test.mode === "run" || test.mode === "queued")) {
        entry.started = true;
        realm.current = entry;
      }
    }

    async onAfterRunTask(test) {
      // The recorder takes the test's real result first.
      await super.onAfterRunTask(test);
      const entry = this.ledger ? this.entryOf(test) : null;
      if (realm.current === entry) realm.current = null;
      if (!entry || entry.frozen === null || this.ledger.mode !== "run") return;
      const result = test.result;
      if (result?.state === "fail") {
        // Muted: the run goes on as if the test had passed, as test.fails does with a failure
        // it expects. The failure is shown in freezegate's summary.
        const rule = this.ledger.rules.find((r) => r.index === entry.frozen);
        entry.failure = firstLine(result.errors?.[0]);
        result.state = "pass";
        result.errors = undefined;
        result.note = `frozen: ${rule?.describe ?? "by the ledger"}`;
      }
    }

    /** What the ledger did in a test file, for the main process (plain data). */
    fileReport(file, state) {
      const tests = [];
      for (const [test, entry] of state.entries) {
        tests.push({
          ...entry,
          state: entry.failure !== null ? "fail" : (test.result?.state ?? null),
          explicit: entry.explicit ? [...entry.explicit] : null,
          auto: entry.auto ? [...entry.auto] : null,
        });
      }
      return {
        file: testFilePath(this.config.root, file),
        collected: state.collected !== false,
        tests,
        notes: state.notes,
      };
    }

    async onAfterRunSuite(suite) {
      const state = suite === suite.file ? this.ledgerFiles.get(suite) : undefined;
      if (state) {
        realm.current = null;
        suite.meta[LEDGER_META_KEY] = this.fileReport(suite, state);
        this.ledgerFiles.delete(suite);
      }
      return super.onAfterRunSuite(suite);
    }
  };
}
