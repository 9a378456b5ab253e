// The five stories of the end-to-end examples (examples/python-ledger, examples/vitest-ledger):
// each example's short history in a temporary repository, and the CLI calls and findings the
// stories share whatever the test runner. project/ is the base commit (branch "base"), and
// each stories/<n>-*/ folder is laid over its parent story's commit as a branch of its own,
// checked out in its own work tree.

import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli.js";
import { makeTempRepo, runGit, type TempRepo } from "./git-repo.js";

/** Each story's folder and the branch its commit goes on top of. */
export const STORIES = {
  1: { folder: "1-honest-freeze", parent: "base" },
  2: { folder: "2-last-witness", parent: "base" },
  3: { folder: "3-shadowed-change", parent: "story-1" },
  4: { folder: "4-one-input", parent: "base" },
  5: { folder: "5-queue-child", parent: "story-1" },
} as const;
export type StoryNumber = keyof typeof STORIES;

export interface StoryHistory {
  /** The repository, its work tree on the base commit. */
  repo: TempRepo;
  /** Story n's work tree. */
  tree(n: StoryNumber): string;
  /** Story n's commit. */
  commit(n: StoryNumber): string;
  cleanup(): void;
}

/**
 * The history of `example` (its project/ and stories/). `prepare` runs in every work tree
 * after its commit: what a clone needs besides the committed files (installed packages).
 */
export function makeStoryHistory(
  example: string,
  prepare: (dir: string) => void = () => {},
): StoryHistory {
  const repo = makeTempRepo();
  cpSync(join(example, "project"), repo.dir, { recursive: true });
  repo.commit("the ledger service, its tests and properties, and the freeze ledger");
  repo.git("branch", "base");
  prepare(repo.dir);
  const trees = mkdtempSync(join(tmpdir(), "freezegate-stories-"));
  const worktrees = new Map<StoryNumber, { dir: string; commit: string }>();
  for (const n of [1, 2, 3, 4, 5] as const) {
    const { folder, parent } = STORIES[n];
    const dir = join(trees, `story-${n}`);
    repo.git("worktree", "add", "-q", "-b", `story-${n}`, dir, parent);
    cpSync(join(example, "stories", folder), dir, { recursive: true });
    runGit(dir, ["add", "-A"]);
    runGit(dir, ["commit", "-q", "-m", `story ${n}: ${folder}`]);
    prepare(dir);
    worktrees.set(n, { dir, commit: runGit(dir, ["rev-parse", "HEAD"]).trim() });
  }
  const story = (n: StoryNumber) => {
    const found = worktrees.get(n);
    if (found === undefined) throw new Error(`story ${n} has no work tree`);
    return found;
  };
  return {
    repo,
    tree: (n) => story(n).dir,
    commit: (n) => story(n).commit,
    cleanup() {
      repo.cleanup();
      rmSync(trees, { recursive: true, force: true });
    },
  };
}

/** The built CLI in `dir`, its JSON report parsed; nothing may be written on stderr. */
export function storyCli(dir: string, args: string[]) {
  const r = runCli(args, { cwd: dir });
  expect(r.stderr).toBe("");
  return { status: r.status, body: JSON.parse(r.stdout) };
}

/** freezegate check on a story, with the samples artifact its test run wrote. */
export function checkStory(dir: string, base: string, today: string) {
  const args = ["check", "--base", base, "--today", today];
  return storyCli(dir, [...args, "--samples", ".freezegate/samples.json", "--format", "json"]);
}

export function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The distinct inputs per property test in the samples artifact a run in `dir` wrote. */
export function samplesOf(dir: string): Record<string, { distinct: number }> {
  return readJson(join(dir, ".freezegate/samples.json")).properties as Record<
    string,
    { distinct: number }
  >;
}

/** Story 1's applied record, written by `tool`: `frozen` applied and failed. */
export function expectHonestFreezeRecord(
  history: StoryHistory,
  tool: string,
  frozen: string,
): void {
  const tree = history.tree(1);
  const ledgerBytes = readFileSync(join(tree, "freeze-ledger.json"));
  expect(readJson(join(tree, ".freezegate/applied.json"))).toEqual({
    version: 1,
    tool,
    commit: history.commit(1),
    ledger: {
      path: "freeze-ledger.json",
      sha256: createHash("sha256").update(ledgerBytes).digest("hex"),
    },
    mode: "run",
    applied: [frozen],
    expired: [],
    outcomes: { [frozen]: "failed" },
    muted: [],
    skipped: [],
    deselected_frozen: [],
  });
}

export type Gate = { gate: string; passed: boolean; findings: { severity: string }[] };
export const errorsOf = (report: { gates: Gate[] }, gate: string) =>
  report.gates.find((g) => g.gate === gate)?.findings.filter((f) => f.severity === "error");

/** Story 1's check report: every gate passes, the only finding is the ledger change. */
export function expectHonestFreezePasses(
  check: { status: number; body: { failedGates: string[]; gates: Gate[] } },
  frozen: string,
): void {
  expect(check.status).toBe(0);
  expect(check.body.failedGates).toEqual([]);
  expect(check.body.gates.map((g) => [g.gate, g.passed])).toEqual([
    ["shadow", true],
    ["shape", true],
    ["witness", true],
    ["deposit", true],
    ["lock", true],
    ["ledger-changes", true],
  ]);
  expect(check.body.gates.flatMap((g) => g.findings)).toMatchObject([
    { gate: "ledger-changes", code: "ledger-changed", severity: "info", testId: frozen },
  ]);
}

/** Story 2: freezing `overdraft`, the last witness of rejected_is_noop, is blocked. */
export function expectLastWitnessBlocked(history: StoryHistory, overdraft: string): void {
  const { status, body } = storyCli(history.tree(2), [
    ...["witness", "check", "--base", "base", "--format", "json"],
  ]);
  expect(status).toBe(1);
  expect(body.findings).toEqual([
    {
      gate: "witness",
      code: "orphaned-property",
      severity: "error",
      propertyId: "prop.ledger.rejected_is_noop",
      message: `property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${overdraft} took its last witness`,
      details: { witnesses: [overdraft], takenBy: [overdraft] },
    },
  ]);
}

/** Story 3's shadow findings: `lines` of `path`, each run only by the frozen `test`. */
export function shadowedLines(path: string, lines: number[], test: string) {
  return lines.map((line) => ({
    gate: "shadow",
    code: "shadowed-line",
    severity: "error",
    path,
    line,
    message: `${path}:${line} is shadowed: only frozen tests cover it: ${test}`,
    details: { frozenTests: [test] },
  }));
}

/** Story 4's deposit finding: the deposited `property` of the freeze of `frozen` ran one input. */
export function oneInputFinding(frozen: string, property: string, path: string) {
  return {
    gate: "deposit",
    code: "deposit-too-few-inputs",
    severity: "error",
    testId: frozen,
    propertyId: property,
    path,
    message: `the freeze of ${frozen} deposits ${property}, but it ran on 1 distinct input (min_distinct is 8)`,
    details: { distinct: 1, minDistinct: 8 },
  };
}

/** `freezegate queue check` in story 5, against the parent entry's record. */
function queueCheck(history: StoryHistory, today: string, child: string) {
  const parent = ".freezegate/parent-applied.json";
  return storyCli(history.tree(5), [
    ...["queue", "check", "--today", today, "--parent", parent, "--child", child],
    ...["--format", "json"],
  ]);
}

/**
 * Story 5, the queue child that fixed the flaky test and removed its freeze: reusing story 1's
 * applied record (copied in as the child's CI job would download the parent's artifact) is
 * refused as stale and an inherited skip of `flaky`; `ownRecord` (the child's own run's
 * record, relative to its work tree) passes.
 */
export function expectQueueChild(
  history: StoryHistory,
  today: string,
  flaky: string,
  ownRecord: string,
): void {
  const dir = history.tree(5);
  mkdirSync(join(dir, ".freezegate"), { recursive: true });
  cpSync(
    join(history.tree(1), ".freezegate/applied.json"),
    join(dir, ".freezegate/parent-applied.json"),
  );
  const reused = queueCheck(history, today, ".freezegate/parent-applied.json");
  expect(reused.status).toBe(1);
  const child = history.commit(5);
  const parent = history.commit(1);
  expect(
    reused.body.findings.map((f: { code: string; details: Record<string, unknown> }) => [
      f.code,
      f.details.problem ?? f.details.reason,
    ]),
  ).toEqual([
    ["stale-record", "commit"],
    ["stale-record", "ledger"],
    ["inherited-skip", "not-frozen"],
  ]);
  expect(reused.body.findings[2]).toEqual({
    gate: "queue",
    code: "inherited-skip",
    severity: "error",
    testId: flaky,
    message: `${flaky} was frozen in the child's run (ran without gating, failed), but freeze-ledger.json at ${child.slice(0, 12)} does not freeze it; the parent's record .freezegate/parent-applied.json (commit ${parent.slice(0, 12)}) applied the same freeze: the skip was inherited`,
    details: {
      reason: "not-frozen",
      inheritedFrom: { record: ".freezegate/parent-applied.json", commit: parent },
      outcome: "failed",
      mode: "run",
      allowed: false,
    },
  });
  const honest = queueCheck(history, today, ownRecord);
  expect(honest.status).toBe(0);
  expect(honest.body.findings).toEqual([]);
}
