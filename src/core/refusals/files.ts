// Refusals of files freezegate reads (one reader serves many inputs: the message names which,
// and the caller may name the flag or setting that gives it in the fix), of JSON text, and of
// freezegate's own configuration.

import { config, git, input } from "./define.js";

/** A file read by label: "ledger", "frozen-test file", "the diff file"... */
type Named = { label: string; path: string };
/** The caller's fix, when it knows which flag or setting names the file. */
type CallerFix = { fix?: string | undefined };

export const FILES = {
  "input-too-large": input(
    (v: { what: string; size: number | null } & CallerFix) =>
      `${v.what} is over 256 MiB${v.size === null ? "" : ` (${(v.size / 1024 / 1024).toFixed(0)} MiB)`}, the most freezegate reads of one input`,
    (v) => v.fix ?? "check that it is the input you meant: no real one comes near that size",
  ),
  "file-not-found": input(
    (v: Named & { underFile: boolean } & CallerFix) =>
      `${v.label} not found: ${v.path}${v.underFile ? " (a directory in that path is a file)" : ""}`,
    (v) => v.fix ?? "check the path",
  ),
  "file-link-dangling": input(
    (v: Named & { target: string }) =>
      `${v.label} ${v.path} is a symbolic link to ${v.target}, which does not exist`,
    "point the link at the file, or delete the link and give the file itself",
  ),
  "file-link-loop": input(
    (v: Named) => `${v.label} ${v.path} is a loop of symbolic links`,
    "point the link at the file, or give the file itself",
  ),
  "file-permission-denied": input(
    (v: Named) => `cannot read ${v.label} ${v.path}: permission denied`,
    "make the file (and its directories) readable by the user running freezegate, e.g. chmod a+r FILE, or run freezegate as that file's owner",
  ),
  "file-unreadable": input(
    (v: Named & { why: string }) => `cannot read ${v.label} ${v.path}: ${v.why}`,
    "check that the file is readable by this user",
  ),
  "file-is-directory": input(
    (v: Named & CallerFix) => `${v.label} is a directory, not a file: ${v.path}`,
    (v) => v.fix ?? "give the path of a file",
  ),
  "file-not-regular": input(
    (v: Named & { kind: string } & CallerFix) =>
      `${v.label} ${v.path} is ${v.kind}, not a regular file`,
    (v) => v.fix ?? "give the path of the file itself: freezegate reads only regular files",
  ),
  "git-ls-files-failed": git(
    (v: { root: string; line: string }) => `git ls-files failed in ${v.root}: ${v.line}`,
    (v) => `run \`git ls-files\` in ${v.root} to see git's full message`,
  ),
  // JSON text (ledgers, records, artifacts, reports).
  "json-wide-encoding": input(
    (v: { source: string; encoding: string }) =>
      `${v.source} is ${v.encoding} text; JSON is read as UTF-8`,
    (v) =>
      `save it as UTF-8, e.g. iconv -f ${v.encoding} -t UTF-8 FILE > FILE.new (in PowerShell: Out-File -Encoding utf8)`,
  ),
  "json-invalid": input(
    (v: { source: string; why: string } & CallerFix) => `${v.source} is not valid JSON: ${v.why}`,
    (v) => v.fix ?? "fix the JSON syntax",
  ),
  "json-duplicate-key": input(
    (v: { source: string; key: string; at: string }) =>
      `${v.source} has the key ${JSON.stringify(v.key)} twice in ${v.at}: JSON readers keep only the last one, a person reading the file sees the first`,
    (v) => `keep one ${JSON.stringify(v.key)} in ${v.at}`,
  ),
  "history-malformed": input(
    (v: { label: string; line: number; problem: string }) =>
      `${v.label} line ${v.line} ${v.problem}`,
    "point --history at a file freezegate stats wrote (one JSON object per line), or a new path",
  ),
  // freezegate's configuration ([tool.freezegate], package.json "freezegate").
  "pyproject-not-toml": config(
    (v: { why: string }) => `pyproject.toml is not valid TOML: ${v.why}`,
    "fix the TOML syntax (freezegate reads [tool.freezegate] from it)",
  ),
  "package-json-not-json": config(
    (v: { why: string }) => `package.json is not valid JSON: ${v.why}`,
    'fix the JSON syntax (freezegate reads its "freezegate" key)',
  ),
  "config-in-two-places": config(
    () =>
      'freezegate settings are in both pyproject.toml [tool.freezegate] and package.json "freezegate"',
    "keep them in one place",
  ),
  "config-not-at-root": config(
    (v: { where: string; what: string }) =>
      `${v.where} has ${v.what}, but freezegate reads its settings only from the repository root's pyproject.toml or package.json`,
    "move the settings to the repository root's file (their paths are relative to the root) and delete them here: flags do not make freezegate pass over them",
  ),
  "config-not-a-table": config(
    (v: { source: string }) => `${v.source} is not a table of settings`,
    (v) =>
      v.source.startsWith("package.json")
        ? 'make "freezegate" an object of settings, e.g. "freezegate": {"base": "origin/main"}'
        : 'write key = value pairs, e.g. base = "origin/main"',
  ),
  "config-unknown-key": config(
    (v: { source: string; key: string; hint: string | null; keys: string }) =>
      `${v.source}: unknown key "${v.key}"`,
    (v) => (v.hint ? `did you mean "${v.hint}"?` : `valid keys: ${v.keys}`),
  ),
  "config-wrong-type": config(
    (v: { source: string; key: string; want: string }) =>
      `${v.source}: "${v.key}" must be ${v.want}`,
    (v) => `set ${v.key} to ${v.want}`,
  ),
  "config-empty-value": config(
    (v: { source: string; key: string }) => `${v.source}: "${v.key}" has an empty value`,
    (v) => `give ${v.key} a value, or remove the key for the default`,
  ),
  "pytest-config-unreadable": config(
    (v: { file: string; why: string }) =>
      `${v.file}: ${v.why} (pytest cannot read this file either)`,
    "fix the file's syntax",
  ),
  "pytest-addopts-unreadable": config(
    (v: { label: string; problem: "unclosed-quote" | "trailing-escape" | "not-string-or-list" }) =>
      v.problem === "unclosed-quote"
        ? `${v.label}: addopts has no closing quotation`
        : v.problem === "trailing-escape"
          ? `${v.label}: addopts ends with an escape character`
          : `${v.label}: [tool.pytest.ini_options] addopts is neither a string nor a list of strings`,
    (v) =>
      v.problem === "unclosed-quote"
        ? "close the quote"
        : v.problem === "trailing-escape"
          ? "remove the trailing backslash"
          : 'write addopts = "..." or addopts = ["...", ...]',
  ),
  "setup-cfg-pytest-section": config(
    (v: { label: string; section: string }) => `${v.label} has ${v.section}`,
    "rename the section to [tool:pytest]",
  ),
  // What freezegate init edits.
  "plugin-switched-off": config(
    (v: { where: string; plugin: string }) =>
      `${v.where} switches the plugin off (its addopts has -p no:${v.plugin})`,
    (v) => `remove -p no:${v.plugin} from addopts first`,
  ),
  "init-pytest-toml": config(
    (v: { where: string }) =>
      `${v.where} is pytest 9's TOML configuration, which freezegate init does not edit (a pytest.ini beside it would replace it)`,
    'add "-p", "freezegate_pytest" to its addopts list yourself, then run pytest with the plugin installed',
  ),
};
