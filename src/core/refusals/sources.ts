// Refusals of what joins the coverage data to the repository: the path mapping, the copy of
// the code the tests ran, and the Python sources.

import { input, usage } from "./define.js";

export const SOURCES = {
  "path-map-no-equals": usage(
    (v: { spec: string; inConfig: boolean }) =>
      v.inConfig
        ? `the config file's "path-map" entry "${v.spec}" has no "="`
        : `--path-map "${v.spec}" has no "="`,
    (v) =>
      v.inConfig
        ? 'write FROM=TO, e.g. path-map = ["/app/=."] to map /app/src/x.py to src/x.py'
        : "write --path-map FROM=TO, e.g. --path-map /app/=. to map /app/src/x.py to src/x.py",
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
  "coverage-paths-unmapped": input(
    (v: { root: string; sample: string; fix: string }) =>
      `no file in the coverage data maps onto the repository ${v.root}: data has ${v.sample}`,
    // Worked out from where the data's paths seem to have been recorded.
    (v) => v.fix,
  ),
  "coverage-path-ambiguous": input(
    (v: {
      recorded: string;
      atRoot: string;
      inDir: string;
      dir: string;
      why: string;
      prefix: string;
    }) =>
      `the coverage data's relative path "${v.recorded}" names both ${v.atRoot} (read from the repository root) and ${v.inDir} (read from ${v.dir}, ${v.why}), and nothing says which directory coverage ran in`,
    (v) =>
      `if coverage ran in ${v.dir}, read its paths there with --path-map =${v.prefix}; if it ran at the repository root, say so with --path-map =`,
  ),
  "coverage-recording-unmapped": input(
    (v: { path: string; recorded: string; rule: string; keptBeside: boolean }) =>
      `the coverage data also records ${v.path} as "${v.recorded}" (another root, or an installed copy) and no --path-map maps it there, so the tests recorded there would be lost`,
    (v) =>
      `map it onto the repository with --path-map "${v.rule}"${v.keptBeside ? "; or, if `coverage combine --keep` already merged the parallel data files into the combined one (freezegate reads both), delete the parallel files" : ""}`,
  ),
  "tests-ran-a-copy": input(
    (
      v:
        | { measured: "another-copy"; copy: string; path: string }
        | {
            measured: "tests-only";
            only: boolean;
            count: number;
            importer: string;
            path: string;
            checkout: string;
          }
        | { measured: "not-executed"; importer: string; path: string; checkout: string },
    ) => {
      if (v.measured === "another-copy") {
        return `none of the changed source files is in the coverage data, which measures ${v.copy} instead of ${v.path}: the tests ran another copy of the code (a build or an installed package)`;
      }
      return v.measured === "tests-only"
        ? `the coverage data ${v.only ? "measures" : "has executed lines in"} test files only (${v.count}, e.g. ${v.importer}), not ${v.path}, which ${v.importer} imports: the tests ran a copy of the code that coverage.py did not measure (an installed package)`
        : `the coverage data holds ${v.path} without a single executed line, though ${v.importer}, which ran, imports it: the tests ran another copy of the code (an installed package) that coverage.py did not measure`;
    },
    (v) =>
      v.measured === "another-copy"
        ? "run the tests against the checkout (an editable install, or PYTHONPATH), or map the copy onto it with --path-map FROM=TO"
        : `run the tests against the checkout (${v.checkout}), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO`,
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
