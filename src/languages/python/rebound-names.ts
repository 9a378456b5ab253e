// Whether deleting defs and classes from a Python module leaves their names bound to another
// body: an inherited method, an import, an earlier def or an assignment. The witness gate asks
// it of a test file whose patch only deletes whole units (deletedUnits): a test kept under a
// deleted name runs that other body, which may be a deleted witness's assertions. Text-level,
// like the other source checks; pure.

import { classHeaders } from "./class-headers.js";

/** class -> the names of its bases (a dotted base by its last name), over these texts in order. */
export function classBases(texts: Iterable<string>): Map<string, string[]> {
  const bases = new Map<string, string[]>();
  for (const text of texts) {
    for (const header of classHeaders(text)) {
      bases.set(header.name, [...(bases.get(header.name) ?? []), ...header.bases]);
    }
  }
  return bases;
}

export interface KeptTests {
  /** Qualified names in the module ("TestX::test_y") of the tests that stay and may run it. */
  names: readonly string[];
  /** The classes of those tests, in any of the modules compared. */
  classes: readonly string[];
  /** class -> its bases' names (classBases of every module compared). */
  bases: ReadonlyMap<string, readonly string[]>;
}

/**
 * Whether deleting these defs and classes (qualified names, as deletedUnits gives them) leaves
 * a name bound to another body, `now` being the module's text after the deletion:
 * - a kept test of the module has the deleted name;
 * - a method: a kept test's class inherits from its class (whatever the method was, the test or
 *   a helper it calls, a base class's body of that name now runs);
 * - a module-level def or class: the module still binds the name (an import at any depth, one
 *   in a parenthesised list, another def or class or an assignment at the top level): an
 *   earlier or imported one takes the deleted one's place.
 */
export function deletionRebinds(deleted: readonly string[], now: string, kept: KeptTests): boolean {
  const imported = parenthesisedImports(now);
  return deleted.some((name) => {
    if (kept.names.some((n) => n === name || n.startsWith(`${name}::`))) return true;
    const parts = name.split("::");
    if (parts.length > 1) {
      const cls = parts.at(-2) as string;
      return kept.classes.some((k) => inheritsFrom(k, cls, kept.bases));
    }
    const last = parts.at(-1) as string;
    return imported.has(last) || bindsAtTopLevel(now, last);
  });
}

/** Whether `cls` is `from` or has it among its bases, at any depth. */
function inheritsFrom(
  cls: string,
  from: string,
  bases: ReadonlyMap<string, readonly string[]>,
  seen = new Set<string>(),
): boolean {
  if (cls === from) return true;
  if (seen.has(cls)) return false;
  seen.add(cls);
  return (bases.get(cls) ?? []).some((base) => inheritsFrom(base, from, bases, seen));
}

/** The names a `from M import (a, b as c)` list binds under their own name (here: a). */
function parenthesisedImports(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/^[ \t]*from[ \t]+\S+[ \t]+import[ \t]*\(([^)]*)\)/gm)].flatMap((m) =>
      [...(m[1] as string).replace(/#[^\n]*/g, "").matchAll(/\b(\w+)\b(?![ \t]+as\b)/g)].map(
        (w) => w[1] as string,
      ),
    ),
  );
}

/**
 * Whether the module binds `name` (an identifier) by a top-level def, class or assignment, or
 * by an import on one line at any depth.
 */
function bindsAtTopLevel(text: string, name: string): boolean {
  return new RegExp(
    `^(?:(?:async[ \\t]+)?def|class)[ \\t]+${name}\\b|^${name}[ \\t]*(?::[^=\\n]*)?=(?!=)|^[ \\t]*(?:from[ \\t]+\\S+[ \\t]+)?import\\b[^\\n(]*\\b${name}\\b`,
    "m",
  ).test(text);
}
