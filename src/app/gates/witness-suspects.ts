// Which quiet tests (frozen, skipped or muted) may be a deleted property's witness renamed or
// moved: a patch that deletes a property with all its witness tests is harmless unless one of
// those tests lives on under another name. The files are read here; what a change of a Python
// file can do is read by src/languages/python/.

import { join } from "node:path";
import { readBlobs } from "../../adapters/git-history.js";
import { readTextOrNull } from "../../adapters/repo-files.js";
import { nodeIdFile } from "../../core/deposits.js";
import { outsideTestDirs } from "../../core/globs.js";
import type { Ledger } from "../../core/ledger-model.js";
import { frozenBy, frozenIds } from "../../core/witness.js";
import { deletedUnits, readOtherwiseByPython } from "../../languages/python/deleted-units.js";
import {
  classBases,
  deletionRebinds,
  type KeptTests,
} from "../../languages/python/rebound-names.js";
import { pythonCodeText } from "../../languages/python/statements.js";
import { classesOf, namesInFile } from "../../runners/pytest/node-ids.js";

export interface SuspectsInput {
  /** Repository root (absolute). */
  root: string;
  mergeBase: string;
  /** The ledger judged (with the merge base's properties). */
  ledger: Ledger;
  /** The merge base ledger's frozen entries. */
  baseFreezes: readonly string[];
  /** Tests the run skipped or muted although no freeze names them -> why. */
  silenced: ReadonlyMap<string, string>;
  /** The repository paths the patch changes. */
  changed: ReadonlySet<string>;
  /** The suite's test ids. */
  known: ReadonlySet<string>;
}

/**
 * The suite's tests that may be a deleted property's witness renamed or moved (sorted): those
 * a freeze the base's ledger did not have freezes in a test file the patch changes (a freeze
 * added or re-pointed by the patch, matched as the audit matches), and the tests any freeze
 * freezes or the run skips or mutes
 * - in a test file the patch changes in more than deleting whole units (tests with their
 *   decorators, helpers, classes, imports, comments: deletedUnits), or where it deletes a def
 *   whose name one of them still has (its body now comes from a base class or an earlier
 *   def): a renamed witness, assertions folded into an old test or its helper, an import
 *   that puts another body in its place;
 * - anywhere in the suite, when the patch so changes another file of the tests (a
 *   conftest.py, tests/helpers.py, a test module of live tests, a data file under tests/: a
 *   data file only by deleting lines; a module without code never), which an old test may
 *   call or read.
 * A file whose only change is deletions keeps its old skips and freezes out of it (a platform
 * skip beside the deleted witness).
 */
export async function witnessSuspects(input: SuspectsInput): Promise<string[]> {
  const { root, silenced, changed, known } = input;
  const everyId = new Set([...known, ...silenced.keys()]);
  const pathOf = changedFileOfTests(everyId, changed);
  const { newlyFrozen, quiet } = quietTests(input, everyId, pathOf);
  const quietFiles = [...new Set(quiet.flatMap((id) => pathOf.get(id) ?? []))];
  const helpers = changedTestHelpers(changed, quietFiles, everyId);
  const compared = [...quietFiles, ...helpers];
  const before = await readBlobs(
    root,
    compared.map((path) => ({ rev: input.mergeBase, path })),
  );
  const textOf = workTreeTexts(root);
  // The classes of the quiet tests, and every class header they and the compared files hold.
  const classes = [...new Set(quiet.flatMap(classesOf))];
  const pythonFiles = new Set([
    ...compared,
    ...quiet.map((id) => pathOf.get(id) ?? nodeIdFile(id)),
  ]);
  const bases = classBases(
    [...pythonFiles].flatMap((path) => (path.endsWith(".py") ? (textOf(path) ?? []) : [])),
  );
  const changedMore = new Set(
    compared.filter((path, i) =>
      changedBeyondDeletions(path, before[i]?.toString("utf8") ?? null, textOf(path), {
        helper: !quietFiles.includes(path),
        kept: {
          names: quiet.filter((id) => pathOf.get(id) === path).map(namesInFile),
          classes,
          bases,
        },
      }),
    ),
  );
  const anyHelper = helpers.some((path) => changedMore.has(path));
  const suspects = quiet.filter((id) => {
    const path = pathOf.get(id);
    return anyHelper || (path !== undefined && changedMore.has(path));
  });
  return [...newlyFrozen.keys(), ...suspects].sort();
}

/**
 * Whether a changed repository path is a node id's file: the id's file is relative to pytest's
 * rootdir, so it is the path or the path ends with it.
 */
function isNodeIdFile(path: string, file: string): boolean {
  return path === file || path.endsWith(`/${file}`);
}

/** Test id -> the changed path that is its file, for the tests whose file the patch changes. */
function changedFileOfTests(
  ids: ReadonlySet<string>,
  changed: ReadonlySet<string>,
): Map<string, string> {
  const pathOf = new Map<string, string>();
  for (const id of ids) {
    const file = nodeIdFile(id);
    for (const path of changed) {
      if (isNodeIdFile(path, file)) {
        pathOf.set(id, path);
        break;
      }
    }
  }
  return pathOf;
}

/**
 * The tests a freeze new to this patch freezes in a changed file (test -> its entry), and the
 * other quiet tests: frozen by any freeze, or skipped or muted in the run.
 */
function quietTests(
  input: SuspectsInput,
  everyId: ReadonlySet<string>,
  pathOf: ReadonlyMap<string, string>,
): { newlyFrozen: Map<string, string>; quiet: string[] } {
  const { ledger, known, silenced } = input;
  const before = new Set(input.baseFreezes);
  const added = frozenIds(ledger).filter((id) => !before.has(id));
  const newlyFrozen = frozenBy(added, pathOf.keys(), known);
  const frozen = frozenBy(frozenIds(ledger), everyId, known);
  const quiet = [...everyId].filter(
    (id) => !newlyFrozen.has(id) && (frozen.has(id) || silenced.has(id)),
  );
  return { newlyFrozen, quiet };
}

/**
 * Every other changed file of the tests, which an old test may call or read: a helper module,
 * a conftest.py, a test module of live tests whose helper an old test imports, a data file.
 */
function changedTestHelpers(
  changed: ReadonlySet<string>,
  quietFiles: readonly string[],
  everyId: ReadonlySet<string>,
): string[] {
  const testFiles = new Set([...everyId].map((id) => nodeIdFile(id)));
  return [...changed].filter(
    (path) =>
      !quietFiles.includes(path) &&
      (!outsideTestDirs(path) || [...testFiles].some((file) => isNodeIdFile(path, file))),
  );
}

/** A reader of work-tree files by repository path, each read once (null: no such file). */
function workTreeTexts(root: string): (path: string) => string | null {
  const texts = new Map<string, string | null>();
  return (path) => {
    if (!texts.has(path)) texts.set(path, readTextOrNull(join(root, path)));
    return texts.get(path) ?? null;
  };
}

/**
 * Whether the patch changes this file of the tests in more than deletions that leave every
 * kept name on its own body. `before`: the file at the merge base (null: new); `now`: in the
 * work tree (null: deleted); `helper`: a file of no quiet test.
 */
function changedBeyondDeletions(
  path: string,
  before: string | null,
  now: string | null,
  opts: { helper: boolean; kept: KeptTests },
): boolean {
  // A file the patch deletes changed only by deletions.
  if (now === null) return false;
  // Data: deleting lines may renumber cases or merge two records.
  if (!path.endsWith(".py")) return before !== now;
  if (readOtherwiseByPython(now)) return true;
  // A module without code (an empty __init__.py) holds no assertions.
  if (pythonCodeText(now) === "") return false;
  if (before === null) {
    // A new module no old test imported; a new conftest.py is loaded for the tests below it.
    return !opts.helper || path === "conftest.py" || path.endsWith("/conftest.py");
  }
  const deleted = deletedUnits(before, now, opts.helper);
  return deleted === null || deletionRebinds(deleted, now, opts.kept);
}
