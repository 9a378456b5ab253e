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
export function todayUtc(now: Date = new Date()): string {
  return formatDay(Math.floor(now.getTime() / DAY_MS));
}

function requireDay(text: string): number {
  const days = parseDay(text);
  // A programming error: every caller validates user-supplied days first.
  if (days === null) throw new RangeError(`not a YYYY-MM-DD day: "${text}"`);
  return days;
}
