// The frozen tests the audit judges: the frozen list, read and resolved against the data's
// tests.

import { readJsonFile } from "../../adapters/repo-files.js";
import { type FrozenList, parseFrozenList } from "../../core/frozen.js";

/** The frozen-test file as a parsed list (any of the seed formats). */
export function loadFrozenList(path: string): FrozenList {
  return parseFrozenList(readJsonFile(path, "frozen-test file"), path);
}
