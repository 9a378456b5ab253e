// `freezegate init pytest`: wire the pytest plugin (integrations/pytest, module
// freezegate_pytest) into a project by adding `-p freezegate_pytest` to addopts in the
// configuration file pytest already uses, or by creating pytest.ini; then say exactly what
// changed and how to install the plugin. `freezegate init vitest` wires the Vitest recorder
// (integrations/vitest) into vitest.config.* the same way (init-vitest.ts).
//
// The file is found the way pytest 7 finds it (src/adapters/pytest-files.ts); the search stops
// at the repository root: a file above the repository is not ours to edit (a pytest.ini
// created in the directory then takes precedence over it, as pytest searches upwards). The
// edit itself is src/runners/pytest/plugin-wiring.ts. The write is atomic; running the
// command again changes nothing.

import { join, relative, resolve } from "node:path";
import { findRepoRoot } from "../../adapters/git.js";
import { findPytestConfig, pluginDirectory } from "../../adapters/pytest-files.js";
import { realPath, realPathOrNull } from "../../adapters/repo-files.js";
import { writeFileAtomic } from "../../adapters/write-file.js";
import { GitError } from "../../core/errors.js";
import { refusal } from "../../core/refusals/index.js";
import {
  PLUGIN_MODULE,
  PLUGIN_TEXT,
  wireIni,
  wirePyproject,
} from "../../runners/pytest/plugin-wiring.js";
import {
  boolOpt,
  type CommandIo,
  type CommandSpec,
  type ParsedArgs,
  stringOpt,
} from "../command.js";
import { DIRECTORY_OPTION } from "../ledger-options.js";
import { initVitest } from "./init-vitest.js";

const RUNNERS = ["pytest", "vitest"];

/** Where init works: the directory, the repository root its search stops at, and labels. */
export interface InitPlace {
  dir: string;
  stop: string;
  show: (path: string) => string;
  dryRun: boolean;
}

async function placeOf(args: ParsedArgs, io: CommandIo): Promise<InitPlace> {
  const given = resolve(io.cwd, stringOpt(args.values, "directory") ?? ".");
  let stop: string | null = null;
  try {
    stop = await findRepoRoot(given);
  } catch (error) {
    // Outside a git work tree only the directory itself is searched.
    if (!(error instanceof GitError)) throw error;
  }
  // git reports the root with symlinks resolved; so must the directories we walk up.
  const dir = realPath(given);
  stop ??= dir;
  const here = realPathOrNull(io.cwd) ?? io.cwd;
  const show = (path: string) => relative(here, path) || ".";
  return { dir, stop, show, dryRun: boolOpt(args.values, "dry-run") };
}

export const initCommand: CommandSpec = {
  name: "init",
  summary:
    "Wire freezegate into a project's test runner: the pytest plugin into the pytest configuration, or the Vitest recorder into vitest.config.*.",
  usage: "freezegate init pytest|vitest [--dry-run] [--config FILE] [-C DIR]",
  positionals: true,
  options: [
    { name: "dry-run", type: "boolean", description: "say what would change, write nothing" },
    {
      name: "config",
      type: "string",
      value: "FILE",
      description: "vitest: the configuration file to edit, as vitest --config names it",
    },
    DIRECTORY_OPTION,
  ],
  details: `init pytest adds -p freezegate_pytest to addopts in the configuration file pytest uses
when started in the directory: the first of pytest.ini, .pytest.ini, pyproject.toml with
[tool.pytest.ini_options], tox.ini with [pytest], setup.cfg with [tool:pytest], in the
directory and then its parents up to the repository root. Without one, pytest.ini is created
in the directory.

init vitest adds to the test options of the configuration file Vitest uses (the first of
vitest.config.{ts,mts,cts,js,mjs,cjs}, then vite.config.*, in the directory and then its
parents up to the repository root; or --config FILE) what is missing of:
  runner: "freezegate/vitest/runner",
  reporters: ["default", "freezegate/vitest/reporter"],
  coverage: { enabled: true, provider: "istanbul" },
Without a configuration file, vitest.config.mjs is created in the directory. A configuration
that is not an object literal (a function, a variable, mergeConfig) is not edited: init
prints the lines to add by hand. It first checks that Vitest 3.2, 4.x or 5.x,
@vitest/coverage-istanbul at Vitest's exact version and freezegate are installed, and the
Node.js version; it refuses the v8 coverage provider and another test.runner. With
test.projects it says what each project needs.

Comments and layout are kept; running it again changes nothing. It edits that one file:
to undo it, remove the lines it printed (or the file it created).

Exit codes:
  0  wired (or already wired; or --dry-run)
  2  usage error, something missing, or a configuration file that cannot be read or edited
     safely`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const [target, ...extra] = args.positionals;
    if (target === undefined || !RUNNERS.includes(target) || extra.length > 0) {
      throw refusal("init-unknown-runner", {
        given: target === undefined ? null : [target, ...extra].join(" "),
      });
    }
    const place = await placeOf(args, io);
    if (target === "vitest") {
      return initVitest(place, stringOpt(args.values, "config"), io);
    }
    if (stringOpt(args.values, "config") !== undefined) {
      throw refusal("init-config-not-for-pytest", undefined);
    }
    return initPytest(place, io);
  },
};

function initPytest({ dir, stop, show, dryRun }: InitPlace, io: CommandIo): number {
  const found = findPytestConfig(dir, stop, show);
  const out: string[] = [];
  if (!found) {
    const path = join(dir, "pytest.ini");
    const text = `[pytest]\naddopts = ${PLUGIN_TEXT}\n`;
    if (!dryRun) writeFileAtomic(path, text);
    out.push(
      `${dryRun ? "would create" : "created"} ${show(path)} (pytest found no configuration here):`,
    );
    for (const line of text.trimEnd().split("\n")) out.push(`  ${line}`);
  } else {
    const label = show(found.path);
    const result =
      found.name === "pyproject.toml"
        ? wirePyproject(found.text, label)
        : wireIni(found.text, found.name, label);
    if (result.kind === "already") {
      out.push(
        `${label} already loads the plugin (${result.section} addopts has ${PLUGIN_TEXT}); nothing changed`,
      );
    } else {
      if (!dryRun) writeFileAtomic(found.path, result.text);
      out.push(
        `${dryRun ? "would add" : "added"} "${PLUGIN_TEXT}" to ${result.section} addopts in ${label}:`,
      );
      for (const line of result.lines) out.push(`  ${label}:${line.number}: ${line.text}`);
    }
  }
  const plugin = pluginDirectory();
  out.push(
    "",
    "Then install the plugin where pytest runs (it depends on pytest only):",
    plugin
      ? `  pip install ${plugin}`
      : "  pip install <the freezegate package>/integrations/pytest (not found next to this freezegate)",
    `Until it is installed pytest stops with 'Error importing plugin "${PLUGIN_MODULE}"', so a`,
    "missing plugin can never mean an ignored ledger.",
    "The plugin applies freeze-ledger.json from pytest's rootdir (--freezegate-ledger to change it)",
    "and writes .freezegate/applied.json and .freezegate/samples.json (add those two files to",
    ".gitignore, not the directory if the ledger lives there: a committed record or samples",
    "file is not a record of the run).",
  );
  if (dryRun) out.push("(dry run: nothing was written)");
  io.stdout.write(`${out.join("\n")}\n`);
  return 0;
}
