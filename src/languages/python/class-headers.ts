// Python class headers read from source text: each class's name and its bases, for the checks
// that follow inheritance (a test method a subclass inherits, a base class's method that takes
// a deleted one's place). Text-level, like the other source checks: a class built by a call
// (`type(...)`) or under a name bound elsewhere is not seen. Pure.

export interface ClassHeader {
  name: string;
  /** Its bases by their last name part ("mod.Base" and "Base[int]" are "Base"), in order. */
  bases: string[];
}

const HEADER = /^[ \t]*class[ \t]+([A-Za-z_]\w*)[ \t]*/gm;

/**
 * Every `class Name:` and `class Name(bases):` in the text, nested ones too, in order. A base
 * list may span lines and hold comments, calls and subscripts; its keyword arguments
 * (`metaclass=...`) and unpacked `*bases` name no base.
 */
export function classHeaders(text: string): ClassHeader[] {
  const out: ClassHeader[] = [];
  for (const match of text.matchAll(HEADER)) {
    let at = (match.index as number) + match[0].length;
    let items: string[] = [];
    if (text[at] === "(") {
      const list = argumentList(text, at);
      if (list === null) continue;
      items = list.items;
      at = list.end;
      while (text[at] === " " || text[at] === "\t") at++;
    }
    if (text[at] !== ":") continue;
    const bases = items
      .map((item) => item.trim())
      .filter((item) => !item.startsWith("*") && !/^[A-Za-z_]\w*[ \t\r\n]*=(?!=)/.test(item))
      .map((item) => /^([A-Za-z_][\w.]*)/.exec(item)?.[1]?.split(".").at(-1))
      .filter((base): base is string => base !== undefined && base !== "");
    out.push({ name: match[1] as string, bases });
  }
  return out;
}

/**
 * The comma-separated items of the bracketed list opening at `open`, comments and line breaks
 * left out, and the index after its closing bracket; null when it does not close.
 */
function argumentList(text: string, open: number): { items: string[]; end: number } | null {
  const items: string[] = [];
  let item = "";
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "#") {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
    } else if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      if (close < 0) return null;
      item += text.slice(i, close + 1);
      i = close;
    } else if (c === "(" || c === "[" || c === "{") {
      if (depth > 0) item += c;
      depth++;
    } else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) {
        items.push(item);
        return { items: items.filter((x) => x.trim() !== ""), end: i + 1 };
      }
      item += c;
    } else if (c === "," && depth === 1) {
      items.push(item);
      item = "";
    } else item += c;
  }
  return null;
}
