// Refusals of the command line itself: commands, flags and their values, and what `init`
// needs to wire a test runner.

import { config, environment, git, input, usage } from "./define.js";
import { KNOWN_TESTS_FIX } from "./ledger.js";

const SEE_HELP = (v: { command: string }) => `run freezegate ${v.command} --help for the list`;
const NEEDS_BASE = 'pass --base REF (e.g. --base origin/main), or set "base" in the config file';

export const CLI = {
  "unknown-command": usage(
    (v: { command: string }) => `unknown command "${v.command}"`,
    "run freezegate --help for the list",
  ),
  "unknown-subcommand": usage(
    (v: { command: string; subcommand: string }) =>
      `unknown subcommand "${v.command} ${v.subcommand}"`,
    SEE_HELP,
  ),
  "option-before-command": usage(
    (v: { option: string }) => `unknown option "${v.option}" before the command`,
    (v) => `options go after the command, e.g. freezegate audit ${v.option} ...`,
  ),
  "version-takes-no-arguments": usage(
    (v: { flag: string; given: string }) => `${v.flag} takes no arguments, got "${v.given}"`,
    (v) => `run freezegate ${v.flag} alone, or put the command first`,
  ),
  "bad-arguments": usage(
    (v: { command: string; problem: string; dashed: string | null }) =>
      `${v.command}: ${v.problem}`,
    (v) =>
      v.dashed === null
        ? `see freezegate ${v.command} --help`
        : `a value starting with "-" is written ${v.dashed}; a missing value is the likelier mistake (see freezegate ${v.command} --help)`,
  ),
  "empty-flag-value": usage(
    (v: { flag: string; needs: string }) => `--${v.flag} has an empty value; it needs ${v.needs}`,
    (v) =>
      `pass --${v.flag} ${v.needs}, or leave the flag out (an unset shell or CI variable expands to "")`,
  ),
  "flag-given-twice": usage(
    (v: { flag: string; first: string; second: string }) =>
      `--${v.flag} is given twice, as "${v.first}" and as "${v.second}"; it takes one value`,
    (v) => `pass --${v.flag} once`,
  ),
  "unknown-format": usage(
    (v: { format: string; known: string }) => `unknown --format "${v.format}"`,
    (v) => `use ${v.known}`,
  ),
  "bad-count": usage(
    (v: { flag: string; value: string; min: number; example: number }) =>
      `--${v.flag} "${v.value}" is not a whole number of at least ${v.min}`,
    (v) => `write e.g. --${v.flag} ${v.example}`,
  ),
  "bad-today": usage(
    (v: { value: string }) => `--today "${v.value}" is not a real day written YYYY-MM-DD`,
    "write e.g. --today 2026-10-18",
  ),
  "bad-freezegate-now": usage(
    (v: { value: string }) => `FREEZEGATE_NOW "${v.value}" is not an ISO date and time`,
    "unset it, or write an ISO instant such as 2026-10-18T23:30:00Z",
  ),
  "directory-is-file": usage(
    (v: { flag: string; dir: string; parent: string }) =>
      `-C ${v.flag}: ${v.dir} is a file, not a directory`,
    (v) => `give -C the directory to run in, e.g. -C ${v.parent}`,
  ),
  // Which changes to audit.
  "nothing-to-audit": usage(
    () => "nothing to audit: say which changes",
    "pass --base REF (e.g. --base origin/main), --staged, --worktree or --diff FILE",
  ),
  "patch-sources-combined": usage(
    (v: { flags: readonly string[] }) => `${v.flags.join(" and ")} cannot be combined`,
    "choose one source of changes",
  ),
  "head-without-base": usage(() => "--head only applies to --base", "add --base REF"),
  "bad-fail-on": usage(
    (v: { where: string; value: string; verdict: string | null; verdicts: readonly string[] }) =>
      v.verdict === null
        ? `${v.where} "${v.value}" has an empty item`
        : `${v.where}: unknown verdict "${v.verdict}"`,
    (v) =>
      v.verdict === null
        ? `list verdicts separated by commas, with none empty: ${v.verdicts.join(", ")}`
        : `use any of: ${v.verdicts.join(", ")}`,
  ),
  "check-needs-base": usage(() => "check needs the patch: which changes are gated?", NEEDS_BASE),
  "deposit-needs-base": usage(
    () => "deposit check needs the patch: which files did it change?",
    NEEDS_BASE,
  ),
  "known-tests-unknown": usage(
    (v: { why: string }) =>
      `cannot tell whether compensating properties are collected tests: ${v.why}`,
    KNOWN_TESTS_FIX,
  ),
  // freeze, extend and unfreeze.
  "needs-one-test-id": usage(
    (v: { command: string; count: number }) =>
      v.count === 0
        ? `${v.command}: which test? give its node id`
        : `${v.command} takes one test id, got ${v.count}`,
    (v) => `freezegate ${v.command} tests/test_x.py::test_y ...`,
  ),
  "impact-needs-test-ids": usage(
    () => "impact needs the test ids to judge",
    "pass one or more node ids, e.g. freezegate impact tests/test_a.py::test_x",
  ),
  "ledger-and-frozen": usage(
    (v: { command: string }) => `${v.command}: --ledger and --frozen both name the frozen tests`,
    "give one: --ledger LEDGER calibrates check's gate, --frozen FILE audit's",
  ),
  "not-one-test-id": usage(
    (v: { command: string; given: string }) =>
      `${v.command}: "${v.given}" is not one exact test id`,
    "give the pytest node id, e.g. tests/test_x.py::test_y (no globs)",
  ),
  "freeze-needs-field": usage(
    (v: { flag: string }) => `freeze needs --${v.flag}: a freeze is a reviewed record`,
    "pass --owner, --reason, --invariant and --property (see freezegate freeze --help)",
  ),
  "property-is-frozen-test": usage(
    (v: { testId: string }) => `${v.testId} cannot be its own compensating property`,
    "name the property test that covers the invariant while this test is frozen",
  ),
  "days-over-policy-window": usage(
    (v: { days: number; max: number }) =>
      `--days ${v.days} is longer than the policy's window of ${v.max} days`,
    (v) => `pass --days ${v.max} or fewer`,
  ),
  "freeze-needs-approver": usage(
    (v: { owner: string | null }) =>
      v.owner === null
        ? "the ledger's policy requires an approver for every freeze"
        : `the owner ${v.owner} cannot approve their own freeze`,
    "pass --approved-by with someone other than the owner",
  ),
  "extend-needs-days": usage(
    () => "extend needs --days N",
    (v: { testId: string }) => `freezegate extend ${v.testId} --days 7`,
  ),
  "not-frozen": usage(
    (v: { testId: string; ledger: string; command: "extend" | "unfreeze" }) =>
      `${v.testId} is not frozen in ${v.ledger}`,
    (v) =>
      v.command === "extend"
        ? "check the test id; freeze it with freezegate freeze"
        : "check the test id against the ledger's freezes",
  ),
  "frozen-by-glob": usage(
    (v: { testId: string; ledger: string; glob: string }) =>
      `${v.testId} has no entry of its own in ${v.ledger}: the entry ${v.glob} freezes it`,
    (v) => `remove or narrow the entry ${v.glob} in ${v.ledger}`,
  ),
  "frozen-twice": input(
    (v: { testId: string; ledger: string; count: number }) =>
      `${v.testId} is frozen ${v.count} times in ${v.ledger}`,
    "keep one entry (freezegate ledger check reports the duplicate)",
  ),
  "freeze-window-unreadable": input(
    (v: { testId: string; opened: string; expires: string }) =>
      `the freeze of ${v.testId} has no valid opened/expires days ("${v.opened}", "${v.expires}"), so its window cannot be judged`,
    (v) => `unfreeze it and freeze it again: freezegate unfreeze ${v.testId}`,
  ),
  "init-unknown-runner": usage(
    (v: { given: string | null }) =>
      v.given === null
        ? "init needs the test runner to wire: pytest or vitest"
        : `init knows the test runners pytest and vitest, not "${v.given}"`,
    "run freezegate init pytest, or freezegate init vitest",
  ),
  "init-config-not-for-pytest": usage(
    () => "--config is for init vitest",
    "leave it out: init pytest edits the file pytest reads",
  ),
  "vitest-config-not-found": usage(
    (v: { config: string }) => `--config ${v.config}: no such file`,
    "name the Vitest configuration file, as vitest --config does",
  ),
  "init-cannot-edit": config(
    (v: { label: string; why: string; byHand: string }) =>
      `cannot edit ${v.label} safely: ${v.why}; nothing was written`,
    (v) => v.byHand,
  ),
  "vitest-config-unsupported": config(
    (v: { label: string; setting: string; value: string; why: string; change: string }) =>
      `${v.label} sets ${v.setting} to ${v.value}: ${v.why}`,
    (v) => `${v.change}, then run freezegate init vitest again`,
  ),
  "vitest-package-missing": config(
    (v: { name: string; why: string; install: string }) =>
      `${v.name} is not installed in this project: ${v.why}`,
    (v) => `npm i -D ${v.install}, then run freezegate init vitest again`,
  ),
  "vitest-package-version": config(
    (v: { shown: string; version: string; why: string; install: string }) =>
      `${v.shown} is version ${v.version}: ${v.why}`,
    (v) => `npm i -D ${v.install}, then run freezegate init vitest again`,
  ),
  "vitest-node-unsupported": environment(
    (v: { node: string; who: string; range: string }) =>
      `this Node.js (v${v.node}) is not one ${v.who} supports (${v.range})`,
    (v) => `run Vitest and freezegate on a Node.js in ${v.range}`,
  ),
  "nothing-to-migrate": usage(
    (v: { names: string }) =>
      `nothing to migrate: none of ${v.names} is at the repository root or under gate/`,
    "name the files with --from FILE",
  ),
  "ledger-exists": usage(
    (v: { ledger: string }) => `the ledger ${v.ledger} already exists`,
    "pass --force to replace it (add it with --from to keep its entries), or --ledger PATH for another file",
  ),
  "base-without-lock-check": usage(
    () => "--base only applies to lock --check",
    "run freezegate lock to write the lock, freezegate lock --check --base REF to verify",
  ),
  "queue-needs-records": usage(
    (v: { missing: string }) => `queue check needs both applied records (missing ${v.missing})`,
    "pass --parent with the previous queue entry's record and --child with this run's record",
  ),
  "queue-commit-unknown": git(
    (v: { ref: string }) => `--commit "${v.ref}" is not a commit in this repository`,
    "pass the commit being gated (a sha or ref that git rev-parse knows), or fetch it",
  ),
  "queue-parent-commit-missing": git(
    (v: { commit: string }) =>
      `the parent's record names commit ${v.commit.slice(0, 12)}, which this clone does not have`,
    (v) =>
      `fetch it (git fetch origin ${v.commit}), or check out with enough history (fetch-depth: 0)`,
  ),
  "frozen-key-is-directory": config(
    (v: { frozen: string; command: string }) =>
      `the config's frozen key names ${v.frozen}, a directory`,
    (v) => `remove the frozen key: ${v.command} takes the frozen tests from the ledger`,
  ),
  "frozen-key-beside-ledger": config(
    (v: { frozen: string; command: string; ledger: string; isLedger: boolean }) =>
      `the config's frozen key names ${v.frozen}, but ${v.command} judges the ledger's freezes (${v.ledger}): a test frozen only in ${v.frozen} would count as live here and as frozen in audit`,
    (v) =>
      v.isLedger
        ? `${v.frozen} is a freeze ledger: name it with the ledger key instead (ledger = "${v.frozen}") and remove the frozen key`
        : "move its freezes into the ledger (freezegate ledger migrate) and remove the frozen key, or set it to the ledger's path",
  ),
  "ledger-not-rewritable": input(
    (v: { label: string; source: string; defaultPath: string }) =>
      `${v.label} is a ${v.source}, which freezegate reads but does not rewrite`,
    (v) =>
      `run freezegate ledger migrate --from ${v.label} to make a freezegate ledger (${v.defaultPath}), then change that`,
  ),
};
