// The freezegate command line as a function (argv, io) -> exit code. The only place that prints errors and picks exit codes:
// known errors (FreezegateError) become one line and exit 2; anything else is a bug in
// freezegate, said so plainly, also exit 2 (an error must never look like a passing gate).

import { isAbsolute, relative } from "node:path";
import { FreezegateError, formatError } from "../core/errors.js";
import { refusal } from "../core/refusals/index.js";
import { visible } from "../reporters/words.js";
import {
  type CliEntry,
  type CommandIo,
  type CommandSpec,
  firstSentence,
  isGroup,
  type ParsedArgs,
  parseCommandArgs,
  renderGroupHelp,
  renderHelp,
} from "./command.js";
import type { LazyEntry } from "./commands/index.js";
import { toolVersion } from "./version.js";

function mainHelp(commands: readonly CliEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const lines = [
    "Usage: freezegate <command> [options]",
    "",
    "Make every frozen (quarantined) test a reviewed, bounded decision, and tell a patch's gate",
    "which changed lines it can no longer defend.",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${firstSentence(c.summary)}`),
    "",
    "Options:",
    "  -h, --help     show help (also: freezegate <command> --help)",
    "  -V, --version  print the version",
    "",
    "Exit codes: 0 pass, 1 a gate failed, 2 usage, configuration or input error.",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * `lazy` is every command this binary offers (COMMANDS for the full CLI). The program never
 * imports that list itself, so a bundle of one command stays free of the others.
 */
export async function main(
  argv: string[],
  io: CommandIo,
  lazy: readonly LazyEntry[],
): Promise<number> {
  const [first, ...rest] = argv;
  let args: ParsedArgs | undefined;
  try {
    if (first === undefined || first === "-h" || first === "--help" || first === "help") {
      // Help lists every command's summary: the only time all modules load.
      const commands = await Promise.all(lazy.map((c) => c.load()));
      const target = first === "help" ? commands.find((c) => c.name === rest[0]) : undefined;
      const sub =
        target && isGroup(target) ? target.subcommands.find((c) => c.name === rest[1]) : undefined;
      const help = sub
        ? renderHelp(sub)
        : target
          ? isGroup(target)
            ? renderGroupHelp(target)
            : renderHelp(target)
          : mainHelp(commands);
      // No command at all is a usage error (a script that lost its arguments must not pass):
      // the help goes to stderr and the exit code is 2.
      if (first === undefined) {
        io.stderr.write(help);
        return 2;
      }
      io.stdout.write(help);
      return 0;
    }
    if (first === "-V" || first === "--version") {
      // Trailing words are refused as every command refuses a stray argument: a script
      // that meant another command must not exit 0 on the version.
      if (rest.length > 0)
        throw refusal("version-takes-no-arguments", { flag: first, given: rest[0] as string });
      io.stdout.write(`${toolVersion()}\n`);
      return 0;
    }
    const found = lazy.find((c) => c.name === first);
    const entry = found ? await found.load() : undefined;
    if (!entry && first.startsWith("-")) throw refusal("option-before-command", { option: first });
    if (!entry) throw refusal("unknown-command", { command: first });
    let command: CommandSpec;
    let argv2 = rest;
    let path = first;
    if (isGroup(entry)) {
      const [subName, ...subRest] = rest;
      if (subName === undefined || subName === "-h" || subName === "--help") {
        // As bare `freezegate`: no subcommand is a usage error, its help on stderr, exit 2.
        if (subName === undefined) {
          io.stderr.write(renderGroupHelp(entry));
          return 2;
        }
        io.stdout.write(renderGroupHelp(entry));
        return 0;
      }
      const sub = entry.subcommands.find((c) => c.name === subName);
      if (!sub) throw refusal("unknown-subcommand", { command: first, subcommand: subName });
      command = sub;
      argv2 = subRest;
      path = `${first} ${subName}`;
    } else {
      command = entry;
    }
    args = parseCommandArgs(command, argv2, path);
    if (args.values.help === true) {
      io.stdout.write(renderHelp(command));
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    const stale = await staleReportsRemoved(args, io.cwd);
    if (error instanceof FreezegateError) {
      // One line, whatever the input it quotes holds (a ledger id or path with a newline
      // would otherwise start a line of its own, e.g. a GitHub workflow command).
      io.stderr.write(`${errorLine(error)}${stale}\n`);
      if (io.env.FREEZEGATE_DEBUG && error.cause)
        io.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
      return error.exitCode;
    }
    const err = error as Error;
    io.stderr.write(
      `freezegate: internal error (a bug in freezegate, please report it): ${visible(err?.message ?? String(error))}${stale}\n`,
    );
    if (io.env.FREEZEGATE_DEBUG) io.stderr.write(`${err?.stack ?? ""}\n`);
    else io.stderr.write("freezegate: run with FREEZEGATE_DEBUG=1 for the stack trace\n");
    return 2;
  }
}

/**
 * The one stderr line of a refusal: `freezegate: error[CODE]: MESSAGE (fix: FIX)`, the code
 * searchable in docs/refusals.md (a refusal without one prints `error:`). Control characters
 * are made visible: a path or id with a newline in it must not start a line of its own.
 */
export function errorLine(error: FreezegateError): string {
  const code = error.code === undefined ? "" : `[${error.code}]`;
  return `freezegate: error${code}: ${visible(formatError(error))}`;
}

/**
 * A run that exits 2 removes the reports an earlier run left at its --output files (see
 * removeStaleReports), and its error line says so. Loaded only then and only for a command
 * with --output, so that other commands' bundles stay free of the reporters.
 */
async function staleReportsRemoved(args: ParsedArgs | undefined, cwd: string): Promise<string> {
  if (args?.values.output === undefined) return "";
  try {
    const { removeStaleReports } = await import("./output-options.js");
    const removed = removeStaleReports(args.values);
    if (removed.length === 0) return "";
    const names = removed.map((p) => {
      const rel = relative(cwd, p);
      return visible(rel === "" || rel.startsWith("..") || isAbsolute(rel) ? p : rel);
    });
    return `; removed the earlier report${names.length === 1 ? "" : "s"} ${names.join(", ")}, so that ${names.length === 1 ? "it is" : "they are"} not read as this run's`;
  } catch {
    return "";
  }
}
