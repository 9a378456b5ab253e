// npm's version ranges, as package.json's `engines` writes them (`^20.19.0 || >=22.12.0`), for
// saying whether a Node.js version is one a package supports. The subset npm's own packages
// use: `||` alternatives of space-separated comparators (`>=`, `>`, `<=`, `<`, `=`, `^`, `~`, a
// bare or partial version, `x`/`*` wildcards) and hyphen ranges (`1.2 - 3`). Pre-release tags
// are not read: a range that has one, or any other syntax, reads as unknown (null).

type Triple = [number, number, number];

interface Bound {
  version: Triple;
  inclusive: boolean;
}

interface Interval {
  min: Bound | null;
  max: Bound | null;
}

/** A partial version: its numbers, and how many were given (x and * end it). */
function partial(text: string): { parts: number[]; given: number } | null {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(text);
  if (!m) return null;
  const parts: number[] = [];
  for (const part of m.slice(1)) {
    if (part === undefined || /^[xX*]$/.test(part)) break;
    parts.push(Number(part));
  }
  return { parts, given: parts.length };
}

function triple(parts: number[]): Triple {
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

/** The version after the last one matching the given parts (`1.2` -> 1.3.0). */
function bumped(parts: number[]): Triple {
  const t = triple(parts);
  const i = parts.length - 1;
  t[i] = (t[i] as number) + 1;
  for (let k = i + 1; k < 3; k++) t[k] = 0;
  return t;
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** The interval one comparator allows, or null when it is not syntax read here. */
function comparator(text: string): Interval | null {
  const m = /^(>=|<=|>|<|=|\^|~)?\s*(.*)$/.exec(text);
  const op = m?.[1] ?? "";
  const p = partial(m?.[2] ?? "");
  if (p === null) return null;
  const { parts, given } = p;
  const from = (v: Triple, inclusive = true): Bound => ({ version: v, inclusive });
  if (given === 0)
    return op === "<" || op === ">"
      ? { min: null, max: from([0, 0, 0], false) }
      : { min: null, max: null };
  switch (op) {
    case "":
    case "=":
      return given === 3
        ? { min: from(triple(parts)), max: from(triple(parts)) }
        : { min: from(triple(parts)), max: from(bumped(parts), false) };
    case ">=":
      return { min: from(triple(parts)), max: null };
    case ">":
      return given === 3
        ? { min: from(triple(parts), false), max: null }
        : { min: from(bumped(parts)), max: null };
    case "<":
      return { min: null, max: from(triple(parts), false) };
    case "<=":
      return given === 3
        ? { min: null, max: from(triple(parts)) }
        : { min: null, max: from(bumped(parts), false) };
    case "~":
      return {
        min: from(triple(parts)),
        max: from(bumped(parts.slice(0, Math.min(given, 2))), false),
      };
    case "^": {
      // The first non-zero part given may not change (for ^0.0 and ^0: the parts given).
      let keep = parts.findIndex((n) => n !== 0);
      if (keep === -1) keep = given - 1;
      return { min: from(triple(parts)), max: from(bumped(parts.slice(0, keep + 1)), false) };
    }
    default:
      return null;
  }
}

function within(version: Triple, interval: Interval): boolean {
  const { min, max } = interval;
  if (min) {
    const d = compare(version, min.version);
    if (d < 0 || (d === 0 && !min.inclusive)) return false;
  }
  if (max) {
    const d = compare(version, max.version);
    if (d > 0 || (d === 0 && !max.inclusive)) return false;
  }
  return true;
}

/**
 * Whether `version` (such as process.versions.node, "22.13.0") is in the npm range `range`;
 * null when the version or the range is not read here.
 */
export function versionInRange(version: string, range: string): boolean | null {
  const v = partial(version.trim());
  if (v === null || v.given !== 3) return null;
  const target = triple(v.parts);
  let any = false;
  for (const alternative of range.split("||")) {
    const text = alternative.trim();
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    let comparators: Interval[] | null;
    if (hyphen) {
      const low = comparator(`>=${hyphen[1]}`);
      const high = comparator(`<=${hyphen[2]}`);
      comparators = low && high ? [low, high] : null;
    } else {
      // `>= 1.2` is one comparator: join an operator to its version first.
      const words = text
        .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
        .split(/\s+/)
        .filter(Boolean);
      comparators = [];
      for (const word of words) {
        const c = comparator(word);
        if (c === null) {
          comparators = null;
          break;
        }
        comparators.push(c);
      }
    }
    if (comparators === null) return null;
    if (comparators.every((c) => within(target, c))) any = true;
  }
  return any;
}

/** The major and minor numbers of a version ("4.1.12", "4.0.0-beta.3"), or null. */
export function majorMinor(version: string): [number, number] | null {
  const m = /^v?(\d+)\.(\d+)\./.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}
