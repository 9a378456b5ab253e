// Which tests the suite has. Gates that judge whether a test id exists (unknown-test,
// deposit-not-collected, `freeze` refusing a typo) read it from `pytest --collect-only -q`
// output (or any file with one node id per line), or else from the coverage data's contexts.

import { refusal } from "./refusals/index.js";

const SUMMARY = /^(\d+ tests? collected|no tests (ran|collected)|-+|\d+ (error|warning)s?\b)/;
/** A `==== warnings summary ====` line, or a rule of "=". */
const SECTION = /^=+(\s|$)/;

/**
 * Node ids from `pytest --collect-only -q` output or a plain list (one id per line).
 * `-q` prints the ids first; what follows the first `====` line is the session's report
 * (warnings, errors, plugins' summaries, such as freezegate's own list of frozen tests),
 * whose lines may quote node ids among other words: none of it is read.
 */
export function parseCollectedIds(text: string, label: string): Set<string> {
  const ids = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const raw of lines) {
    const line = raw.trim();
    if (SECTION.test(line)) break;
    if (line === "" || line.startsWith("#") || SUMMARY.test(line)) continue;
    if (line.includes("::")) {
      ids.add(line);
      continue;
    }
    if (/^[^\s:]+\.py: \d+$/.test(line)) {
      throw refusal("collected-per-file-counts", { label, line });
    }
  }
  if (ids.size === 0) {
    throw refusal("collected-no-tests", { label });
  }
  return ids;
}
