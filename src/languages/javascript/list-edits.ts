// Adding items to an object or array literal in a JavaScript/TypeScript text (read with
// tokens.ts and literals.ts) in the text's own layout: its line ends, indentation, quotes and
// trailing-comma style; a one-line list stays on one line, a list over lines gets one line per
// new item. Edits are collected first and applied together, so that each can be shown.

import type { ListNode, Span } from "./literals.js";
import { type JsScan, tokenAt } from "./tokens.js";

/** How a text writes its lists. */
export interface Style {
  eol: string;
  /** One level of indentation. */
  unit: string;
  quote: string;
  /** Whether a multi-line list ends with a comma. */
  trailing: boolean;
}

/** Replace `remove` characters at offset `at` by `insert`. */
export interface Edit {
  at: number;
  remove: number;
  insert: string;
}

/** A property or element to add, on one line or as a block at a given indentation. */
export interface NewItem {
  inline: string;
  block(indent: string): string;
}

/** An item that is the same on one line as in a block. */
export const oneLine = (text: string): NewItem => ({ inline: text, block: () => text });

/**
 * The property `key: { ...items }`: on one line in a one-line list, else one item a line,
 * one level deeper than the property.
 */
export function objectItem(key: string, items: NewItem[], style: Style): NewItem {
  return {
    inline: `${key}: { ${items.map((i) => i.inline).join(", ")} }`,
    block: (indent) => {
      const inner = indent + style.unit;
      const lines = items.map(
        (item, k) =>
          `${style.eol}${inner}${item.block(inner)}${k < items.length - 1 || style.trailing ? "," : ""}`,
      );
      return `${key}: {${lines.join("")}${style.eol}${indent}}`;
    },
  };
}

function lineStart(text: string, offset: number): number {
  return Math.max(text.lastIndexOf("\n", offset - 1), text.lastIndexOf("\r", offset - 1)) + 1;
}

function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? "";
}

function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === "";
}

/** The layout of `text`, from the list `top` (its outermost object) and its strings. */
export function styleOf(scan: JsScan, top: ListNode): Style {
  const { text } = scan;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let single = 0;
  let double = 0;
  for (const token of scan.tokens) {
    if (token.kind === "string") {
      if (token.text.startsWith("'")) single++;
      else double++;
    }
  }
  const open = tokenAt(scan, top.open);
  const first = top.items[0];
  let unit = "";
  if (first !== undefined) {
    const start = tokenAt(scan, first.first).start;
    const outer = indentAt(text, open.start);
    const inner = indentAt(text, start);
    if (startsLine(text, start) && inner.startsWith(outer)) unit = inner.slice(outer.length);
  }
  if (unit === "") unit = /^\t/m.test(text) ? "\t" : "  ";
  const multiLine = /[\r\n]/.test(text.slice(open.end, tokenAt(scan, top.close).start));
  return {
    eol,
    unit,
    quote: single > double ? "'" : '"',
    trailing: first !== undefined && multiLine ? top.trailingComma !== null : true,
  };
}

/** Where new lines go after `pos`: the end of its line when only comments follow there. */
function endOfLine(scan: JsScan, pos: number): number {
  const { text } = scan;
  let p = pos;
  for (;;) {
    while (text[p] === " " || text[p] === "\t") p++;
    const comment = scan.comments.find((c) => c.start === p);
    if (comment !== undefined) {
      if (/[\r\n]/.test(text.slice(comment.start, comment.end))) return pos;
      p = comment.end;
      continue;
    }
    return p >= text.length || text[p] === "\n" || text[p] === "\r" ? p : pos;
  }
}

/** The edits that add `items` at the end of a list, in its own layout. */
export function appendItems(
  scan: JsScan,
  style: Style,
  list: ListNode,
  items: NewItem[],
  blockWhenEmpty: boolean,
): Edit[] {
  const { text } = scan;
  const open = tokenAt(scan, list.open);
  const close = tokenAt(scan, list.close);
  const inner = text.slice(open.end, close.start);
  const multiLine = /[\r\n]/.test(inner);
  const outer = indentAt(text, open.start);
  const last = list.items[list.items.length - 1];
  const commaAfter = (k: number, trailing: boolean) =>
    k < items.length - 1 || trailing ? "," : "";
  if (last === undefined) {
    if (!multiLine && !blockWhenEmpty) {
      const pad = open.text === "{" ? " " : "";
      const joined = items.map((item) => item.inline).join(", ");
      return [{ at: open.end, remove: inner.length, insert: `${pad}${joined}${pad}` }];
    }
    const indent = outer + style.unit;
    const body = items
      .map(
        (item, k) => `${style.eol}${indent}${item.block(indent)}${commaAfter(k, style.trailing)}`,
      )
      .join("");
    if (inner.trim() === "") {
      return [{ at: open.end, remove: inner.length, insert: `${body}${style.eol}${outer}` }];
    }
    // Only comments inside: the new lines go first, the comments stay after them.
    return [{ at: open.end, remove: 0, insert: body }];
  }
  const lastEnd = tokenAt(scan, last.last).end;
  const hadTrailing = list.trailingComma !== null;
  const anchor = hadTrailing ? tokenAt(scan, list.trailingComma as number).end : lastEnd;
  const edits: Edit[] = hadTrailing ? [] : [{ at: lastEnd, remove: 0, insert: "," }];
  if (!multiLine) {
    const joined = items.map((item) => item.inline).join(", ");
    edits.push({ at: anchor, remove: 0, insert: ` ${joined}${hadTrailing ? "," : ""}` });
    return edits;
  }
  const lastStart = tokenAt(scan, last.first).start;
  const firstStart = tokenAt(scan, (list.items[0] as Span).first).start;
  const indent = startsLine(text, lastStart)
    ? indentAt(text, lastStart)
    : startsLine(text, firstStart)
      ? indentAt(text, firstStart)
      : outer + style.unit;
  const body = items
    .map((item, k) => `${style.eol}${indent}${item.block(indent)}${commaAfter(k, hadTrailing)}`)
    .join("");
  edits.push({ at: endOfLine(scan, anchor), remove: 0, insert: body });
  return edits;
}

/** The text with the edits made, and where each inserted text now is. */
export function applyEdits(
  text: string,
  edits: Edit[],
): { text: string; ranges: Array<[number, number]> } {
  // Stable by offset: edits at one offset keep the order they were made in.
  const sorted = edits.map((e, k) => ({ e, k })).sort((a, b) => a.e.at - b.e.at || a.k - b.k);
  let out = "";
  let from = 0;
  const ranges: Array<[number, number]> = [];
  for (const { e } of sorted) {
    if (e.at < from) throw new Error("overlapping edits");
    out += text.slice(from, e.at);
    ranges.push([out.length, out.length + e.insert.length]);
    out += e.insert;
    from = e.at + e.remove;
  }
  out += text.slice(from);
  return { text: out, ranges };
}
