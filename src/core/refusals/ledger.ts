// Refusals of the freeze ledger and what the ledger commands and gates read beside it: the
// ledger's structure, its lock, the pytest plugin's applied record and samples artifact, the
// generator lock, the collected test ids.

import { config, input, usage } from "./define.js";

/** Where in a ledger file: `ledger LABEL: JSON.PATH`. */
type At = { label: string; at: string };
const inLedger = (v: At) => `ledger ${v.label}: ${v.at}`;

const LEDGER_EXAMPLE = 'write {"version": 1, "freezes": [], "properties": []}';
const REPO_PATH_FIX =
  'write a path relative to the repository root, with "/" separators, e.g. "tests/strategies.py"';
const RECORD_FIX =
  "regenerate it with the pytest plugin (pytest -p freezegate_pytest), or see docs/merge-queue.md for the format";
const SAMPLES_FIX =
  'write {"version": 2, "commit": "<git rev-parse HEAD>", "properties": {"tests/props/test_x.py::test_y": {"distinct": 12}}} (see docs/samples-artifact.md)';
const SWEEP_FIX =
  "pass the record the freezegate pytest plugin's --freezegate-sweep wrote (integrations/pytest/README.md, the sweep record), or remove the file";
/** Where a missing sweep record comes from (the file reader's fix for --sweep). */
export const SWEEP_NOT_FOUND_FIX =
  "check the path; pytest --freezegate-sweep writes it (.freezegate/sweep.json in pytest's rootdir by default), and CI keeps it from the nightly sweep";
const LOCK_FIX = "regenerate it with freezegate lock and review the change";
const PYTEST_LET_THEM_RUN =
  "the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip";
const SAME_LEDGER = (v: { ledgerKey: string }) =>
  `point both at one ledger: ${v.ledgerKey}, and pytest's freezegate_ledger`;

/** How users can give freezegate the known tests (for messages when there are none). */
export const KNOWN_TESTS_FIX =
  "pass --collected FILE (write it with pytest --collect-only -q > collected.txt) or --coverage PATH (per-test coverage data, pytest --cov --cov-context=test)";

/** What belongs in a value of each expected type. */
const TYPE_FIX = {
  "an object": "fix the ledger's structure",
  "a list": "write a JSON array",
  "a string": 'write a string (or "")',
  "true or false": "write true or false",
} as const;

export const LEDGER = {
  // The ledger file's structure (the first problem, by its JSON path).
  "ledger-no-version": input(
    (v: At & { keys: string; readable: string }) =>
      `${inLedger(v)} has ${v.keys} but no "version" (freezegate reads ledger version ${v.readable})`,
    'add "version": 1',
  ),
  "ledger-not-a-ledger": input(
    (v: At) =>
      `${inLedger(v)} is not a freeze ledger: it has none of "version", "schema", "freezes", "properties", "frozen"`,
    `${LEDGER_EXAMPLE}, or run freezegate ledger migrate`,
  ),
  "ledger-version-unknown": input(
    (v: At & { version: string; readable: string; newer: boolean }) =>
      `${inLedger(v)} is ${v.version}; this freezegate reads ledger version ${v.readable}`,
    (v) => (v.newer ? "upgrade freezegate to read this ledger" : 'set "version": 1'),
  ),
  "ledger-schema-unknown": input(
    (v: At & { schema: string }) =>
      `${inLedger(v)} is ${v.schema}; freezegate reads freeze ledgers of "schema": 1 (and its own format, "version": 1)`,
    'set "schema": 1, or run freezegate ledger migrate',
  ),
  "ledger-no-freezes": input(
    (v: At) => `${inLedger(v)} has no "freezes" list`,
    'add "freezes": []',
  ),
  "ledger-wrong-type": input(
    (v: At & { value: string; expected: keyof typeof TYPE_FIX }) =>
      `${inLedger(v)} is ${v.value}, not ${v.expected}`,
    (v) => TYPE_FIX[v.expected],
  ),
  "ledger-unknown-key": input(
    (v: At & { key: string; allowed: string }) => `${inLedger(v)} has an unknown key "${v.key}"`,
    (v) => `remove it or correct its spelling; allowed here: ${v.allowed}`,
  ),
  "ledger-empty-value": input(
    (v: At & { what: "test id" | "path" }) => `${inLedger(v)} is empty`,
    (v) =>
      v.what === "path"
        ? 'write a file path or glob relative to the repository root, e.g. "tests/strategies.py", or remove the entry'
        : "write a test id or remove the entry",
  ),
  "ledger-not-positive": input(
    (v: At & { value: string; example: number }) =>
      `${inLedger(v)} is ${v.value}, not a whole number >= 1`,
    (v) => `write e.g. ${v.example}, the default`,
  ),
  "ledger-not-a-share": input(
    (v: At & { value: string }) => `${inLedger(v)} is ${v.value}, not a number from 0 to 1`,
    "write a share, e.g. 0.5 for half of the withdrawn lines, or remove the key to judge none",
  ),
  "ledger-unknown-gate": input(
    (v: At & { value: string; gates: string }) => `${inLedger(v)} is ${v.value}, not a gate`,
    (v) => `use any of: ${v.gates}`,
  ),
  "ledger-gate-repeated": input(
    (v: At & { gate: string }) => `${inLedger(v)} repeats "${v.gate}"`,
    "list each gate once",
  ),
  "ledger-bad-repo-path": input(
    (v: At & { path: string; problem: "backslash" | "absolute" | "escapes" }) =>
      `${inLedger(v)} "${v.path}" ${
        v.problem === "backslash"
          ? "contains a backslash"
          : v.problem === "absolute"
            ? "is an absolute path"
            : 'escapes the repository ("..")'
      }`,
    REPO_PATH_FIX,
  ),
  "ledger-property-id-repeated": input(
    (v: At & { id: string; first: string }) =>
      `${inLedger(v)} repeats the id "${v.id}" of ${v.first}`,
    "give each property its own id, or merge the two entries",
  ),
  "ledger-migrate-conflict": input(
    (v: { what: string; first: string; second: string; difference: string }) =>
      `cannot migrate: ${v.what} differs between ${v.first} and ${v.second} (${v.difference})`,
    "make the two entries agree or delete one, then migrate again",
  ),
  // The ledger file on disk.
  "ledger-not-found": input(
    (v: { path: string }) => `ledger not found: ${v.path}`,
    "check --ledger (or the ledger config key), or create it with freezegate freeze or freezegate ledger migrate",
  ),
  "ledger-is-link": input(
    (v: { path: string; target: string }) =>
      `the ledger ${v.path} is a symbolic link (to ${v.target}): writing it would replace the link with a file`,
    `point --ledger (or the "ledger" config key) at the real file`,
  ),
  "ledger-locked": input(
    (v: { ledger: string; who: string; lock: string; seconds: number }) =>
      `the ledger ${v.ledger} is locked by ${v.who} (lock file ${v.lock}); waited ${v.seconds} s`,
    (v) => `wait for the other freezegate command to finish; if none is running, delete ${v.lock}`,
  ),
  "ledger-lock-failed": input(
    (v: { action: "create" | "read" | "break"; lock: string; why: string }) =>
      `cannot ${v.action === "break" ? "break the stale" : v.action} ${v.action === "break" ? "" : "the "}ledger lock ${v.lock}: ${v.why}`,
    (v) =>
      v.action === "break"
        ? `delete ${v.lock} if no freezegate command is running`
        : "check that the ledger's directory exists and is writable",
  ),
  "ledger-lock-lost": input(
    (v: { lock: string }) =>
      `lost the ledger lock ${v.lock} while writing (another process broke it): nothing was written`,
    "run the command again",
  ),
  // Where the gates read the ledger from.
  "ledger-outside-repo": input(
    (v: { ledger: string }) =>
      `the ledger ${v.ledger} is outside the repository, so its changes cannot be read from the commits`,
    "keep the ledger in the repository, where its changes are reviewed, and point --ledger at it",
  ),
  "ledger-uncommitted": input(
    (v: { ledger: string; command: string }) =>
      `the ledger ${v.ledger} has uncommitted changes, and who changed a freeze is read from the commits`,
    (v) => `commit them; to try the check on them before committing, run ${v.command}`,
  ),
  "ledger-behind-link": input(
    (v: { ledger: string; target: string; isLink: boolean }) =>
      `the ledger ${v.ledger} ${v.isLink ? `is a symbolic link to ${v.target}` : `lies under a symbolic link (it is ${v.target})`}: git records the link, not the ledger, so the ledger's changes cannot be read from the commits`,
    (v) => `point --ledger (or the "ledger" config key) at the real file ${v.target}`,
  ),
  // The pytest plugin's ledger and its applied record.
  "plugin-config-unreadable": config(
    (v: { file: string; why: string }) =>
      `cannot tell which ledger the freezegate pytest plugin reads: ${v.file} cannot be read here (${v.why})`,
    (v) => `fix ${v.file}, or set the plugin's ledger plainly (freezegate_ledger = PATH)`,
  ),
  "plugin-ledger-differs": config(
    (v: { plugin: string; given: string; judge: string; ledger: string; ledgerKey: string }) =>
      `the freezegate pytest plugin applies the ledger ${v.plugin} (${v.given}), but ${v.judge} judges ${v.ledger}: a freeze only pytest applies would mute a test the gate counts as live`,
    SAME_LEDGER,
  ),
  "tests-ran-other-ledger": input(
    (v: { ran: string; record: string; judge: string; ledger: string; ledgerKey: string }) =>
      `the tests ran with the ledger ${v.ran} (the freezegate pytest plugin's applied record ${v.record}), but ${v.judge} judges ${v.ledger}: a freeze only pytest applied muted a test the gate counts as live`,
    (v) => `${SAME_LEDGER(v)}; then run the tests again`,
  ),
  "tests-ran-other-ledger-version": input(
    (v: { ledger: string; judge: string; record: string; recorded: string; actual: string }) =>
      `the tests ran with another version of ${v.ledger} than ${v.judge} judges (the applied record ${v.record} says sha256 ${v.recorded.slice(0, 12)}, the file is ${v.actual.slice(0, 12)})`,
    "run the tests again on this ledger, and do not change it between the tests and the gate",
  ),
  "tests-froze-more": input(
    (v: { count: number; ledger: string; example: string; record: string; ledgerKey: string }) =>
      `the tests froze ${v.count} test(s) that ${v.ledger} does not freeze, e.g. ${v.example} (the applied record ${v.record})`,
    (v) => `${SAME_LEDGER(v)}; then run the tests again`,
  ),
  "frozen-tests-deselected": input(
    (v: { count: number; ledger: string; sample: string; record: string }) =>
      `the tests did not run ${v.count} test(s) that ${v.ledger} freezes: ${v.sample} (deselected, says the applied record ${v.record}, and not in the coverage data); a frozen test that does not run leaves no coverage, so the lines only it runs would read "uncovered" instead of "shadowed"`,
    "do not deselect frozen tests (a conftest.py hook, -k, -m, --deselect): let them run (the ledger already keeps their failures from failing the run), or combine the coverage data of the jobs that ran them, then run the tests again",
  ),
  // pytest's data shows a test's body by its "|run" context (not in a JSON report when the
  // body ran no measured line); Vitest's data says whether Vitest called the test function.
  "frozen-tests-not-run": input(
    (v: { count: number; label: string; list: string; jsonReport?: boolean; vitest?: boolean }) =>
      v.vitest
        ? `${v.count} frozen test(s) in ${v.label} did not run their body in the Vitest run (skipped, todo, or stopped by a failing beforeAll or beforeEach hook), or the data does not say that they did, so the lines they would cover are unknown: ${v.list}`
        : v.jsonReport
          ? `${v.count} frozen test(s) in ${v.label} have setup or teardown contexts but no "|run" context in the coverage json report, which lists only the contexts that ran a measured line: it cannot show whether a test whose body ran no measured line ran, so the lines they would cover are unknown: ${v.list}`
          : `${v.count} frozen test(s) in ${v.label} ran no test body (the coverage data has their setup or teardown but no "|run" context: skipped, their setup failed, or their body ran no measured line), so the lines they would cover are unknown: ${v.list}`,
    (v) =>
      v.vitest
        ? "freeze tests through the freeze ledger, which freezegate's Vitest runner applies by running them with their failures ignored, instead of .skip or .todo, and make their hooks pass; then record again"
        : v.jsonReport
          ? `audit the .coverage data file of the same run (--coverage .coverage), which can show it (coverage.py 6.5 keeps such a test's empty "|run" context); a frozen test that was skipped must run with its failures ignored (${PYTEST_LET_THEM_RUN})`
          : `let frozen tests run with their failures ignored (${PYTEST_LET_THEM_RUN}), re-run the tests, then audit; a test that cannot run on this platform (skipif) covers nothing here: leave it out of the frozen list (name the other cases instead of a glob)`,
  ),
  "applied-record-missing": input(
    (v: { samples: string; writer: string; places: string; keepRecord: string }) =>
      `the samples artifact ${v.samples} is from ${v.writer}'s run at this commit, but no applied record of that run is at ${v.places}: what the run froze, muted and deselected cannot be checked`,
    (v) => v.keepRecord,
  ),
  "applied-record-malformed": input(
    (v: { label: string; at: string; problem: string }) =>
      `applied record ${v.label}: ${v.at} ${v.problem}`,
    RECORD_FIX,
  ),
  "applied-record-too-new": input(
    (v: { label: string; version: string; readable: number }) =>
      `applied record ${v.label}: $.version is ${v.version}; this freezegate reads applied records of version ${v.readable}`,
    "upgrade freezegate to read this record",
  ),
  "allow-not-in-records": usage(
    (v: { ids: string; parent: string; child: string }) =>
      `--allow ${v.ids}: in neither applied record (${v.parent}, ${v.child})`,
    "allow only test ids a record applied a freeze to; check the spelling",
  ),
  // The samples artifact (deposit gate).
  "samples-not-found": input(
    (v: { path: string }) => `samples artifact not found: ${v.path}`,
    "check the path; the freezegate pytest plugin writes it in every run in which it finds a ledger (pytest's freezegate_ledger setting, else freeze-ledger.json in pytest's rootdir): a ledger elsewhere needs freezegate_ledger = PATH in pytest's config",
  ),
  "samples-malformed": input(
    (v: { label: string; at: string; problem: string }) =>
      `samples artifact ${v.label}: ${v.at} ${v.problem}`,
    SAMPLES_FIX,
  ),
  "samples-version-1": input(
    (v: { label: string }) =>
      `samples artifact ${v.label}: "version" is 1, which records no commit, so its counts may come from another commit's run; this freezegate reads version 2`,
    "re-run the tests on this commit with the current freezegate pytest plugin, which writes version 2 with the commit (or add the commit: see docs/samples-artifact.md)",
  ),
  "samples-no-commit": input(
    (v: { label: string; head: string }) =>
      `samples artifact ${v.label}: "commit" is null (the run could not tell its commit), so its counts cannot be tied to HEAD (${v.head.slice(0, 12)})`,
    "run the tests inside the git work tree of this commit, then pass the samples artifact that run wrote",
  ),
  "samples-other-commit": input(
    (v: { label: string; commit: string; head: string }) =>
      `samples artifact ${v.label} was recorded at commit ${v.commit.slice(0, 12)}, not at HEAD (${v.head.slice(0, 12)}): its counts are another run's`,
    "re-run the tests on this commit and pass the samples artifact that run wrote",
  ),
  // Which tests exist.
  "collected-per-file-counts": input(
    (v: { label: string; line: string }) =>
      `${v.label} holds per-file counts ("${v.line}"), not node ids: it looks like pytest --collect-only -qq output`,
    "write it with pytest --collect-only -q (one q)",
  ),
  "collected-no-tests": input(
    (v: { label: string }) =>
      `${v.label} names no tests (no line holds a node id like tests/test_x.py::test_y)`,
    "write it with pytest --collect-only -q > collected.txt",
  ),
  "coverage-names-no-tests": input(
    (v: { files: string; none: string }) =>
      `the coverage data ${v.files} names no tests (${v.none}), so it cannot say which tests exist`,
    KNOWN_TESTS_FIX,
  ),
  "deposits-not-judged": input(
    (v: { why: string }) => `cannot judge the deposits: ${v.why}`,
    KNOWN_TESTS_FIX,
  ),
  // The nightly sweep's record (freeze and check refuse a property that fails at its seed).
  "sweep-record-malformed": input(
    (v: { label: string; at: string; problem: string }) =>
      `sweep record ${v.label}: ${v.at} ${v.problem}`,
    SWEEP_FIX,
  ),
  "sweep-record-other-ledger": input(
    (v: { label: string; recorded: string; ledger: string }) =>
      `the sweep record ${v.label} is of the ledger ${v.recorded}, and this command judges ${v.ledger}: its failures are about another ledger's properties`,
    (v) =>
      `pass the record of a sweep of ${v.ledger} (pytest --freezegate-sweep with that ledger) as --sweep FILE`,
  ),
  "sweep-record-no-commit": input(
    (v: { label: string }) =>
      `the sweep record ${v.label} names no commit (the sweep ran outside a git work tree), so nothing ties its failures to this repository`,
    "run the sweep in a clone of this repository, and pass the record it writes",
  ),
  "sweep-record-commit-missing": input(
    (v: { label: string; commit: string }) =>
      `the sweep record ${v.label} was written at commit ${v.commit}, which this repository does not have: another repository's record, or a clone without that commit`,
    (v) =>
      `fetch it (git fetch origin ${v.commit}), or pass the record of this repository's sweep as --sweep FILE`,
  ),
  // The generator lock.
  "generator-lock-empty": input(
    () => "the generator lock has no files to fingerprint",
    "list the strategy/fixture/conftest files in the ledger's policy.generator_lock",
  ),
  "generator-lock-unlisted": input(
    () => "the ledger's policy.generator_lock lists no files",
    "list the strategy/fixture/conftest files (paths or globs) in policy.generator_lock",
  ),
  "generator-lock-glob-matches-nothing": input(
    (v: { glob: string }) => `generator_lock glob "${v.glob}" matches no file in the repository`,
    "fix the glob in policy.generator_lock, or remove it",
  ),
  "generator-lock-entry-is-directory": input(
    (v: { entry: string; dir: string }) =>
      `generator_lock entry "${v.entry}" is a directory, not a file`,
    (v) => `use a glob such as "${v.dir}/**"`,
  ),
  "generator-lock-file-missing": input(
    (v: { path: string; where: "repository" | "work tree" }) =>
      `generator_lock file "${v.path}" does not exist in the ${v.where}`,
    (v) =>
      v.where === "work tree"
        ? "restore it, or remove it from policy.generator_lock"
        : "fix the path in policy.generator_lock (relative to the repository root), or remove it",
  ),
  "generator-lock-file-is-link": input(
    (v: { path: string; target: string }) =>
      `generator_lock file "${v.path}" is a symbolic link (to ${v.target}): the lock would pin the link, not the generator's code`,
    "name the file it points to in policy.generator_lock; a glob must not match the link",
  ),
  "lock-file-malformed": input(
    (v: { label: string; problem: string }) => `lock file ${v.label} ${v.problem}`,
    LOCK_FIX,
  ),
  "lock-file-outside-repo": input(
    (v: { path: string }) => `the lock file ${v.path} is outside the repository`,
    "keep the lock file in the repository (default property-lock.json at the root)",
  ),
  "lock-files-uncommitted": input(
    (v: { files: readonly string[]; base: string }) =>
      `${v.files.join(", ")} differ${v.files.length === 1 ? "s" : ""} from HEAD, so the lock cannot be checked against ${v.base}...HEAD`,
    "commit the changes first: with a base, the lock is checked against the range's commits",
  ),
};
