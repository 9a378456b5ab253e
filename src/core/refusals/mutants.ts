// Refusals of mutant runs (`impact --mutants`, `calibrate --mutants`): the flags, the mutator, the tests' command
// and the guards that keep a run from reporting "every mutant survived" for a reason that is
// no mutant's.

import { environment, input, usage } from "./define.js";

const MUTANTS_DOC = "see docs/ledger.md, What a freeze withdraws, in killed mutants";

export const MUTANTS = {
  "mutants-need-run": usage(
    () => "--mutants needs the command that runs the tests (--run)",
    'pass --run "python3 -m pytest" (the command as you run pytest, without test ids)',
  ),
  "mutants-option-alone": usage(
    (v: { flag: string }) => `--${v.flag} is an option of --mutants, which was not given`,
    (v) => `add --mutants, or leave --${v.flag} out`,
  ),
  "mutants-language-unsupported": usage(
    (v: { runner: string; command: "impact" | "calibrate" }) =>
      `--mutants mutates Python only so far, and this coverage data is ${v.runner}'s`,
    (v) =>
      `run ${v.command} without --mutants: ${v.command === "impact" ? "the withdrawn lines are reported" : "the canaries are audited"} all the same`,
  ),
  "mutants-plugin-missing": environment(
    () =>
      "the freezegate pytest package (integrations/pytest) is not next to this freezegate, and --mutants runs its mutator",
    "use a complete freezegate install (the npm package ships integrations/pytest)",
  ),
  "mutator-not-run": environment(
    (v: { python: string; why: string }) => `cannot run the Python ${v.python}: ${v.why}`,
    "name the interpreter with --python PATH or FREEZEGATE_PYTHON (Python 3.9 or newer)",
  ),
  "mutator-failed": input(
    (v: { path: string; line: string }) => `the mutator could not read ${v.path}: ${v.line}`,
    (v) => `check that ${v.path} is Python the --python interpreter can parse`,
  ),
  "mutator-output-unreadable": environment(
    (v: { path: string; why: string }) =>
      `the mutator's answer for ${v.path} is not what this freezegate reads: ${v.why}`,
    "run the freezegate_pytest of this freezegate's own package (PYTHONPATH is set to it; an older copy installed first may answer)",
  ),
  "mutants-baseline-failed": input(
    (v: { command: string; why: string; tail: string }) =>
      `the tests did not run unchanged: \`${v.command}\` ${v.why}${v.tail === "" ? "" : `; its output ends: ${v.tail}`}`,
    `fix --run so that it runs the selected tests from your directory (${MUTANTS_DOC})`,
  ),
  "mutants-other-copy": input(
    (v: { path: string; what: string }) =>
      `the tests that execute ${v.path} do not run it: with the module made to fail on import, ${v.what}, so they import another copy (an installed package), and every mutant would survive`,
    (v) =>
      `install the package in editable mode (pip install -e .), or put its source first on PYTHONPATH in --run, keeping what freezegate sets there (e.g. --run 'env PYTHONPATH="src:$PYTHONPATH" python3 -m pytest'), so that the tests import ${v.path} of the repository`,
  ),
} as const;
