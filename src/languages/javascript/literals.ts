// Object and array literals read from a token scan (tokens.ts): their items, split at the
// commas of their own level, and what each property's value is when it is a plain literal.
// Anything else is "other": the caller cannot know its value without running the code.

import { isPunct, type JsScan, JsScanError, stringValue, type Token, tokenAt } from "./tokens.js";

/** A run of tokens, by index, both ends included. */
export interface Span {
  first: number;
  last: number;
}

/** An object or array literal: its brackets, its items, and a comma after the last item. */
export interface ListNode {
  open: number;
  close: number;
  items: Span[];
  /** The index of the comma after the last item, or null. */
  trailingComma: number | null;
}

export interface PropertyNode extends Span {
  /**
   * `init` (`key: value`), `shorthand` (`key`), `method` (`key() {}`, getters, setters),
   * `spread` (`...x`), `computed` (`[expr]: value`).
   */
  kind: "init" | "shorthand" | "method" | "spread" | "computed";
  /** The property's name; null for a spread or a computed key. */
  key: string | null;
  /** The tokens of the value of an `init` property. */
  value: Span | null;
}

export type ValueNode =
  | { kind: "string"; value: string }
  | { kind: "boolean"; value: boolean }
  | { kind: "object"; list: ListNode; properties: PropertyNode[] }
  | { kind: "array"; list: ListNode }
  | { kind: "other" };

/** The items of the literal whose opening bracket is the token `open`. */
export function listAt(scan: JsScan, open: number): ListNode {
  const close = tokenAt(scan, open).match;
  const items: Span[] = [];
  let trailingComma: number | null = null;
  let first = open + 1;
  for (let i = open + 1; i <= close; i++) {
    const token = tokenAt(scan, i);
    if (i < close && token.match > i) {
      i = token.match;
      continue;
    }
    if (i === close || isPunct(token, ",")) {
      if (first === i) {
        if (i === close) break; // `{}`, or after a trailing comma
        // `[a, , b]`, `{,}`: nothing this reader needs to understand.
        throw new JsScanError("an empty item in a list", token.start);
      }
      items.push({ first, last: i - 1 });
      if (i + 1 === close && isPunct(token, ",")) trailingComma = i;
      first = i + 1;
    }
  }
  return { open, close, items, trailingComma };
}

const MODIFIERS = new Set(["get", "set", "async"]);

function keyText(token: Token): string | null {
  if (token.kind === "ident" || token.kind === "number") return token.text;
  if (token.kind === "string") return stringValue(token);
  return null;
}

/** The properties of an object literal. */
export function objectProperties(scan: JsScan, list: ListNode): PropertyNode[] {
  return list.items.map(({ first, last }) => {
    const head = tokenAt(scan, first);
    if (isPunct(head, "...")) return { kind: "spread", key: null, first, last, value: null };
    if (isPunct(head, "[")) {
      return { kind: "computed", key: null, first, last, value: null };
    }
    // `get x() {}`, `async *x() {}`: the name follows the modifiers.
    let keyIndex = first;
    while (keyIndex < last) {
      const token = tokenAt(scan, keyIndex);
      const next = tokenAt(scan, keyIndex + 1);
      const modifier =
        token.kind === "ident" &&
        MODIFIERS.has(token.text) &&
        !isPunct(next, ":") &&
        !isPunct(next, "(") &&
        !isPunct(next, "<");
      if (!modifier && !isPunct(token, "*")) break;
      keyIndex++;
    }
    const keyToken = tokenAt(scan, keyIndex);
    const key = isPunct(keyToken, "[") ? null : keyText(keyToken);
    if (keyIndex === last) {
      return { kind: key === null ? "computed" : "shorthand", key, first, last, value: null };
    }
    if (keyIndex === first && isPunct(tokenAt(scan, first + 1), ":")) {
      if (first + 2 > last) throw new JsScanError("a property without a value", head.start);
      return {
        kind: key === null ? "computed" : "init",
        key,
        first,
        last,
        value: { first: first + 2, last },
      };
    }
    return { kind: "method", key, first, last, value: null };
  });
}

/** What the tokens of a value are, when they are one plain literal. */
export function valueAt(scan: JsScan, span: Span): ValueNode {
  const head = tokenAt(scan, span.first);
  if (span.first === span.last) {
    const text = stringValue(head);
    if (text !== null) return { kind: "string", value: text };
    if (head.kind === "ident" && (head.text === "true" || head.text === "false")) {
      return { kind: "boolean", value: head.text === "true" };
    }
    return { kind: "other" };
  }
  if (head.match !== span.last) return { kind: "other" };
  if (isPunct(head, "{")) {
    const list = listAt(scan, span.first);
    return { kind: "object", list, properties: objectProperties(scan, list) };
  }
  if (isPunct(head, "[")) return { kind: "array", list: listAt(scan, span.first) };
  return { kind: "other" };
}

/** The source text of a span. */
export function spanText(scan: JsScan, span: Span): string {
  return scan.text.slice(tokenAt(scan, span.first).start, tokenAt(scan, span.last).end);
}
