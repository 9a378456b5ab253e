// Path globs for choosing which changed files are audited (source files) and which are tests.
// gitignore-like: "*" and "?" stay within one path segment, "**" spans segments, and a pattern
// without "/" matches the file's basename anywhere ("test_*.py" matches "a/b/test_x.py").
// A trailing "/**" matches everything below a directory ("tests/**"); a leading "**/" any
// number of directories above it ("**/tests/**"). pytest's `python_files` globs are fnmatch
// globs, compiled here too (compilePythonFilesGlob).

export type PathMatcher = (path: string) => boolean;

/**
 * A glob as the body of a regular expression. "path": the test and source globs here ("*" and
 * "?" stay within a path segment, "**" spans segments). "fnmatch": Python's fnmatch, as pytest
 * matches `python_files` ("*" and "?" span "/"). Both read `[set]` and `[!set]`; a "[" without
 * its "]" is literal.
 */
function globToRegExp(glob: string, dialect: "path" | "fnmatch"): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*" && dialect === "fnmatch") {
      out += ".*";
    } else if (ch === "*") {
      if (glob[i + 1] === "*") {
        // "**/" spans zero or more directories; a bare "**" spans anything.
        if (glob[i + 2] === "/") {
          out += "(?:.*/)?";
          i += 2;
        } else {
          out += ".*";
          i += 1;
        }
      } else {
        out += "[^/]*";
      }
    } else if (ch === "?") {
      out += dialect === "fnmatch" ? "." : "[^/]";
    } else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) {
        out += "\\[";
      } else {
        let set = glob.slice(i + 1, close);
        if (set.startsWith("!")) set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else {
      out += ch.replace(/[.+^${}()|\\]/g, "\\$&");
    }
  }
  return out;
}

export function compileGlob(pattern: string): PathMatcher {
  const anchored = pattern.includes("/");
  const clean = pattern.replace(/^\.\//, "").replace(/^\//, "");
  const body = globToRegExp(clean, "path");
  const re = anchored ? new RegExp(`^${body}$`, "s") : new RegExp(`(?:^|/)${body}$`, "s");
  return (path) => re.test(path);
}

/** Any of the globs (`compile`: the path globs here, or compilePythonFilesGlob). */
export function compileGlobs(
  patterns: readonly string[],
  compile: (pattern: string) => PathMatcher = compileGlob,
): PathMatcher {
  const matchers = patterns.map((pattern) => compile(pattern));
  return (path) => matchers.some((m) => m(path));
}

/**
 * Test files unless configured: a tests/ directory at any depth (a monorepo service's, or one
 * inside the package), a test/ directory at the root, and pytest's file names anywhere.
 * `testing/` and a nested `test/` are left out: numpy.testing and django.test are library code.
 */
export const DEFAULT_TEST_GLOBS = [
  "**/tests/**",
  "test/**",
  "test_*.py",
  "*_test.py",
  "conftest.py",
] as const;
export const DEFAULT_SOURCE_GLOBS = ["**/*.py"] as const;

/** Not conftest.py, and in no directory named tests, test or testing. */
export function outsideTestDirs(path: string): boolean {
  const parts = path.split("/");
  return (
    parts.at(-1) !== "conftest.py" &&
    !parts.slice(0, -1).some((d) => d === "tests" || d === "test" || d === "testing")
  );
}

/**
 * Test files by the test globs (also relative to the test root `prefix`), conftest.py, and
 * anything in a directory named tests, test or testing (helpers beside the tests).
 */
export function testFileMatcher(
  globs: readonly string[],
  prefix: string,
): (path: string) => boolean {
  const glob = globsUnderTestRoot(globs, prefix);
  return (path) => glob(path) || !outsideTestDirs(path);
}

/** Globs matched against a repository path, or against its part below the test root. */
export function globsUnderTestRoot(
  globs: readonly string[],
  prefix: string,
): (path: string) => boolean {
  const glob = compileGlobs([...globs]);
  return (path) =>
    glob(path) || (prefix !== "" && path.startsWith(prefix) && glob(path.slice(prefix.length)));
}

/**
 * A pytest `python_files` glob as pytest matches a file's repository path (relative to the
 * test root) with it (fnmatch_ex): one without "/" against the basename, one with "/" against
 * the end of the path; "*" and "?" span directories.
 */
export function compilePythonFilesGlob(glob: string): PathMatcher {
  const body = globToRegExp(glob, "fnmatch");
  if (glob.includes("/")) {
    const re = new RegExp(`(?:^|/)${body}$`, "s");
    return (path) => re.test(path);
  }
  const re = new RegExp(`^${body}$`, "s");
  return (path) => re.test(path.slice(path.lastIndexOf("/") + 1));
}

/**
 * A pytest `python_files` glob as a test-file glob. pytest matches one without "/" against
 * a file's basename (fnmatch: the same as a glob here), and one with "/" against the end of
 * the file's path, its "*" spanning directories ("testing/check_*.py" matches
 * "x/testing/check_a/b.py"). Null for a glob not read here (a character set, an escape, an
 * absolute path): it then adds no test file.
 */
export function pythonFilesTestGlob(glob: string): string | null {
  if (glob === "" || /[[\]\\]/.test(glob) || glob.startsWith("/")) return null;
  // fnmatch's "**" is its "*"; here it would span directories.
  if (!glob.includes("/")) return glob.replace(/\*+/g, "*");
  let out = "**/";
  for (const ch of glob) {
    if (ch === "*") out += "**";
    // "**/" here would mean "any directories, or none": "/" after a "*" stays a literal "/".
    else if (ch === "/" && out.endsWith("*")) out += "[/]";
    else out += ch;
  }
  return out;
}

/**
 * The test globs with the `python_files` globs of the test root's pytest configuration added,
 * when they are the defaults (test-files is not set); globs the user set stay as they are.
 * `pythonFiles` null (a configuration not read) or none adds nothing.
 */
export function withPythonFiles(
  testGlobs: readonly string[],
  pythonFiles: readonly string[] | null,
): string[] {
  const isDefault =
    testGlobs.length === DEFAULT_TEST_GLOBS.length &&
    testGlobs.every((glob, i) => glob === DEFAULT_TEST_GLOBS[i]);
  if (!isDefault || pythonFiles === null) return [...testGlobs];
  const added = pythonFiles.map(pythonFilesTestGlob).filter((g): g is string => g !== null);
  return [...new Set([...testGlobs, ...added])];
}
