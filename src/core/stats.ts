// Ledger metrics: how much is frozen, for how long, and
// whether the shadow ratio ever moves. Pure: the numbers come from values the app gathered;
// the history is JSON lines, one run per line, parsed strictly (a history that is not JSON
// lines is an error, never an empty trend).

import { daysBetween, isDay } from "./dates.js";
import type { Ledger } from "./ledger-model.js";
import { refusal } from "./refusals/index.js";

export interface Stats {
  /** The day the figures are for (YYYY-MM-DD, UTC). */
  date: string;
  /** HEAD when the figures were taken, when known. */
  commit: string | null;
  /** Freezes in the ledger (expired ones included: they are still in the file). */
  openFreezes: number;
  /** Median days since `opened`, over freezes with a valid date; null without any. */
  medianAgeDays: number | null;
  expired: number;
  /** Freezes with a deposit finding; null when the deposit gate could not be judged here. */
  depositFailures: number | null;
  orphanedProperties: number;
  /** From the shadow audit of the patch; null when no audit ran or no changed line ran. */
  shadowRatio: number | null;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function freezeAges(ledger: Ledger, today: string): { ages: number[]; expired: number } {
  const ages: number[] = [];
  let expired = 0;
  for (const f of ledger.freezes) {
    if (isDay(f.opened)) ages.push(daysBetween(f.opened, today));
    if (isDay(f.expires) && daysBetween(f.expires, today) > 0) expired++;
  }
  return { ages, expired };
}

const KEYS: ReadonlyArray<keyof Stats> = [
  "date",
  "commit",
  "openFreezes",
  "medianAgeDays",
  "expired",
  "depositFailures",
  "orphanedProperties",
  "shadowRatio",
];

/** Parse a history file's text: one Stats object per non-empty line. */
export function parseHistory(text: string, label: string): Stats[] {
  const out: Stats[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw refusal("history-malformed", {
        label,
        line: i + 1,
        problem: "is not JSON: the history must be JSON lines",
      });
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw refusal("history-malformed", { label, line: i + 1, problem: "is not a JSON object" });
    }
    const rec = value as Record<string, unknown>;
    const missing = KEYS.filter((k) => !(k in rec));
    if (missing.length > 0 || typeof rec.date !== "string" || !isDay(rec.date)) {
      throw refusal("history-malformed", {
        label,
        line: i + 1,
        problem: `is not a freezegate stats record (${missing.length > 0 ? `missing ${missing.join(", ")}` : "bad date"})`,
      });
    }
    out.push(rec as unknown as Stats);
  }
  return out;
}

export function serializeStats(stats: Stats): string {
  const ordered: Record<string, unknown> = {};
  for (const k of KEYS) ordered[k] = stats[k];
  return `${JSON.stringify(ordered)}\n`;
}

/**
 * The stuck-ratio warning: freezes exist and the shadow ratio has not moved over the last `runs`
 * measured runs ("you are not freezing tests, you are deleting them with extra paperwork").
 */
export function stagnation(history: readonly Stats[], runs: number): string | null {
  const measured = history.filter((s) => s.shadowRatio !== null);
  if (runs < 2 || measured.length < runs) return null;
  const last = measured.slice(-runs);
  const first = last[0] as Stats;
  if (first.openFreezes === 0 || (last[last.length - 1] as Stats).openFreezes === 0) return null;
  if (!last.every((s) => s.shadowRatio === first.shadowRatio)) return null;
  return `freezes exist and the shadow ratio has stayed at ${pct(first.shadowRatio)} over the last ${runs} runs: freezes are not being resolved (re-enable or delete the frozen tests, or write properties)`;
}

export function pct(ratio: number | null): string {
  return ratio === null ? "n/a" : `${(ratio * 100).toFixed(1)}%`;
}
