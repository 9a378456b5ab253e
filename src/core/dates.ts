// Calendar days for the freeze ledger ("YYYY-MM-DD"), always in UTC: a freeze's expiry must
// not depend on the time zone of the machine that runs the gate. A day is handled as a count
// of days since 1970-01-01, so arithmetic never meets daylight-saving hours.

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a real calendar day written YYYY-MM-DD, or null for anything else. */
export function parseDay(text: string): number | null {
  const match = DAY_PATTERN.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  // Date.UTC rolls 2026-02-30 over into March; a real day survives the round trip unchanged.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1) return null;
  if (date.getUTCDate() !== day) return null;
  return Math.floor(date.getTime() / DAY_MS);
}

/** Whether `text` is a real calendar day written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  return parseDay(text) !== null;
}

/** YYYY-MM-DD of a day count (days since 1970-01-01). */
export function formatDay(days: number): string {
  const date = new Date(days * DAY_MS);
  const year = String(date.getUTCFullYear()).padStart(4, "0");
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  const day = String(date.getUTCDate()).padStart(2, "0");
  return `${year}-${month}-${day}`;
}

/** `day` plus `n` days (n may be negative). Throws on a day that is not real: callers check. */
export function addDays(day: string, n: number): string {
  return formatDay(requireDay(day) + n);
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return requireDay(to) - requireDay(from);
}

/** The UTC calendar day of an instant (default: now). */
/** `YYYY-MM-DD`, then optionally `THH:MM[:SS[.fraction]]` (or a space), then `Z` or `±HH:MM`. */
const INSTANT =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))?)?$/;

/**
 * The UTC day of an ISO instant, as the pytest plugin reads FREEZEGATE_NOW: with a zone, the
 * day it is in UTC; without one, the day as written (never the machine's local time). Null for
 * anything else (`1`, `2026/10/20`, `2026-02-30`, `24:00`), which JavaScript's Date would
 * read as some day.
 */
export function utcDayOfInstant(text: string): string | null {
  const m = INSTANT.exec(text.trim());
  if (m === null) return null;
  const day = m[1] as string;
  const days = parseDay(day);
  if (days === null) return null;
  const [hour, minute, second] = [m[2], m[3], m[4]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[5];
  if (zone === undefined || zone === "Z") return day;
  const [zh, zm] = [Number(m[6]), Number(m[7])];
  if (zh > 23 || zm > 59) return null;
  const offset = (zone.startsWith("-") ? -1 : 1) * (zh * 60 + zm);
  const minutes = days * 24 * 60 + hour * 60 + minute - offset;
  return formatDay(Math.floor(minutes / (24 * 60)));
}

export function todayUtc(now: Date = new Date()): string {
  return formatDay(Math.floor(now.getTime() / DAY_MS));
}

function requireDay(text: string): number {
  const days = parseDay(text);
  // A programming error: every caller validates user-supplied days first.
  if (days === null) throw new RangeError(`not a YYYY-MM-DD day: "${text}"`);
  return days;
}
