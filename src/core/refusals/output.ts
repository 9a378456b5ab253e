// Refusals of where reports go: --output, --format, the history file, and writing files.

import { config, input, usage } from "./define.js";

const OWN_FILE = "give each report its own file";

export const OUTPUT = {
  "output-unknown-format": usage(
    (v: { value: string; format: string; known: string }) =>
      `--output "${v.value}": unknown format "${v.format}"`,
    (v) =>
      `use FORMAT=FILE with one of: ${v.known} (a file whose name has "=" in it: write it as ./${v.value})`,
  ),
  "output-no-file": usage(
    (v: { value: string; format: string }) => `--output "${v.value}": no file after "="`,
    (v) => `write --output ${v.format}=FILE`,
  ),
  "output-empty": usage(() => "--output needs a file", "write --output [FORMAT=]FILE"),
  "output-no-format": usage(
    (v: { value: string; known: string }) => `--output "${v.value}": no format before "="`,
    (v) =>
      `write FORMAT=FILE with one of: ${v.known} (a file whose name starts with "=": write it as ./${v.value})`,
  ),
  "output-plain-twice": usage(
    () => "--output FILE without a format can be given once",
    "name the format of the others: --output FORMAT=FILE",
  ),
  "output-stdout-twice": usage(
    () => "--output names stdout (-) twice",
    "send one report to stdout and the others to files",
  ),
  "output-stdout-taken": usage(
    (v: { format: string; output: string }) =>
      `--format ${v.format} and --output ${v.output}=- both want stdout`,
    (v) => `send one of them to a file: --output ${v.format}=FILE or --output ${v.output}=FILE`,
  ),
  "output-file-twice": usage((v: { path: string }) => `--output names ${v.path} twice`, OWN_FILE),
  "output-same-file": usage(
    (v: { first: string; second: string }) =>
      `--output ${v.first} and --output ${v.second} are one file (a link): one report would replace the other`,
    OWN_FILE,
  ),
  "config-format-unknown": config(
    (v: { format: string; known: string }) =>
      `the config file's "format" is not a report format: ${v.format}`,
    (v) => `use one of: ${v.known}`,
  ),
  "output-html-fallback-named": usage(
    (v: { path: string }) =>
      `--output names ${v.path}, where the HTML report goes when stdout is a terminal`,
    "give that report another file, or pipe stdout (| cat > page.html)",
  ),
  "output-directory-missing": input(
    (v: { path: string; dir: string }) =>
      `cannot write ${v.path}: the directory ${v.dir} does not exist`,
    "create the directory first, or write the report elsewhere",
  ),
  "output-is-directory": input(
    (v: { path: string }) => `cannot write ${v.path}: it is a directory`,
    "give a file name for the report",
  ),
  "output-is-input": usage(
    (v: { named: string; path: string; what: string }) =>
      `${v.named} ${v.path} is the ${v.what} this run reads`,
    "write the report to another file",
  ),
  "output-in-git-directory": usage(
    (v: { named: string; path: string }) =>
      `${v.named} ${v.path} is inside the repository's .git directory: a report there would break the repository`,
    "write the report to a file outside .git",
  ),
  "html-fallback-not-a-report": usage(
    (v: { path: string }) =>
      `stdout is a terminal, so the HTML report goes to ${v.path}, but that file is not a freezegate report`,
    "move that file away, pass --output html=FILE, or pipe stdout (| cat > page.html)",
  ),
  "output-tracked-file": usage(
    (v: { named: string; path: string; report: boolean }) =>
      `${v.named} ${v.path} is a file git tracks${v.report ? "" : " and not a freezegate report"}: the report would replace it`,
    "write the report to a file git does not track (an ignored or new one)",
  ),
  "history-not-found": input(
    (v: { path: string }) => `the history file ${v.path} does not exist`,
    "point --history at the file freezegate stats --history appends to, or leave it out",
  ),
  "write-failed": input(
    // `what`: the file's role where the path alone does not say it ("the ledger").
    (v: { what?: string; path: string; why: string; nothingWritten: boolean }) =>
      `cannot write ${v.what === undefined ? "" : `${v.what} `}${v.path}: ${v.why}${v.nothingWritten ? "; no report file was written" : ""}`,
    "check that the directory exists and is writable",
  ),
  "output-not-written": input((v: { why: string }) => `cannot write the output: ${v.why}`),
};
