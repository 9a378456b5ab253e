// Refusals of what joins the coverage data to the repository: the path mapping and the
// Python sources.

import { input, usage } from "./define.js";

export const SOURCES = {
  "path-map-no-equals": usage(
    (v: { spec: string }) => `--path-map "${v.spec}" has no "="`,
    "write --path-map FROM=TO, e.g. --path-map /app/=. to map /app/src/x.py to src/x.py",
  ),
  "path-map-sends-away": input(
    (v: { rule: string; recorded: string; path: string; target: string }) =>
      `the path-map rule "${v.rule}" sends the coverage data's "${v.recorded}", the recording of the changed file ${v.path}, ${v.target}, so ${v.path} would pass as unmeasured`,
    (v) =>
      `drop the rule (--path-map or the config's path-map), or narrow it so that it no longer matches "${v.recorded}"`,
  ),
  "patch-changes-path-map": input(
    (v: { rules: string; path: string; now: string; then: string }) =>
      `the patch changes path-map (now ${v.rules}), and the new rules give the changed file ${v.path} the data recorded as "${v.now}" instead of "${v.then}"`,
    "change path-map in a patch that changes no measured source file, or pass --path-map",
  ),
  "javascript-line-break": input(
    (v: { path: string }) =>
      `${v.path} holds a line break that git does not count (a lone carriage return, or U+2028/U+2029), so the Vitest data's line numbers do not name the lines the patch changes`,
    `end its lines with "\\n" (or "\\r\\n") only, then record again`,
  ),
  // Python sources.
  "python-foreign-encoding": input(
    (v: { where: string; encoding: string }) =>
      `${v.where} declares the source encoding "${v.encoding}", which freezegate does not read: it reads Python source as UTF-8, where that encoding's text may hide code in a comment or string`,
    (v) => `save ${v.where} as UTF-8 and drop the coding line`,
  ),
  "python-lone-carriage-return": input(
    (v: { path: string; line: number }) =>
      `${v.path} has a carriage return that ends no line on line ${v.line} (git counts it as one line, Python as two), so git's line numbers do not match the coverage data's`,
    "use LF or CRLF line endings only (e.g. dos2unix), commit, re-run the tests, then audit",
  ),
  "python-syntax-error": input(
    (v: { where: string; line: number; what: string }) =>
      `${v.where} is not valid Python 3.11: ${v.what} at line ${v.line}`,
    "make the file importable by Python 3.11 (coverage.py cannot measure it either)",
  ),
};
