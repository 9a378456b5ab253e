// Where Python ends a line and git does not. git ends a line at "\n" only; Python's tokenizer
// also at a lone "\r", and str.splitlines() at more characters still: after one, line numbers
// counted by git and by Python's tools name different lines.

import { refusal } from "../../core/refusals/index.js";

/**
 * git ends a line at "\n" only; Python (so coverage.py and the statement finder) also at a
 * lone "\r". After one, git's line numbers and the data's name different lines.
 */
export function refuseLoneCarriageReturn(path: string, text: string): void {
  const at = text.search(/\r(?!\n)/);
  if (at < 0) return;
  const line = text.slice(0, at).split("\n").length;
  throw refusal("python-lone-carriage-return", { path, line });
}

/**
 * Characters Python's str.splitlines() ends a line at, besides "\n" and "\r". coverage.py 6.x
 * splits a file that way to analyse it, so after one of them a JSON report's executed and
 * missing lists name other lines than the tracer (its contexts) and git do: an executed
 * `return x` would read as not code. Such a file's statements come from the finder alone,
 * as with the SQLite data, whose lines are the tracer's.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these line breaks are what it finds
export const REPORT_LINE_BREAKS = /[\v\f\x1c-\x1e\x85\u2028\u2029]/;
