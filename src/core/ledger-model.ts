// The freeze ledger: one reviewed file that holds every freeze (who, why, until when, which
// invariant it withdraws, which property compensates), the properties and their witnesses,
// and the policy the gates enforce. This module is only the data model; parsing lives in
// ledger.ts and each gate in its own module.

/** Current version of freezegate's own ledger format (the "version" key). */
export const LEDGER_VERSION = 1;

/** Where the ledger lives when --ledger / the `ledger` config key do not say. */
export const DEFAULT_LEDGER_PATH = "freeze-ledger.json";

/** The generator lock file's default path, relative to the repository root. */
export const DEFAULT_LOCK_PATH = "property-lock.json";

/** Gates a policy can make blocking. */
export const GATES = ["shadow", "shape", "witness", "deposit", "lock", "ledger-changes"] as const;
export type Gate = (typeof GATES)[number];

export interface LedgerPolicy {
  /** Longest allowed freeze, opened to expires, in days (default 14). */
  max_window_days: number;
  /** Distinct inputs a compensating property must have run on (default 8). */
  min_distinct: number;
  /** Gates whose failures fail the build (default: all). */
  blocking: Gate[];
  /** Files fingerprinted by the generator lock (strategies, fixtures, conftest). */
  generator_lock: string[];
  /** Every freeze needs `approved_by` (someone other than its owner and its author). */
  require_approval: boolean;
  /**
   * The share (0..1) of the lines a freeze withdraws that its compensating property must
   * execute, per the coverage data. Absent: not judged (the figure is still shown).
   */
  min_compensation?: number;
}

export const DEFAULT_POLICY: LedgerPolicy = {
  max_window_days: 14,
  min_distinct: 8,
  blocking: [...GATES],
  generator_lock: [],
  require_approval: false,
};

export interface Freeze {
  test_id: string;
  reason: string;
  owner: string;
  /** YYYY-MM-DD */
  opened: string;
  /** YYYY-MM-DD: the last day the freeze applies. */
  expires: string;
  invariant: string;
  compensating_property: string;
  reused_property: boolean;
  approved_by?: string;
}

/**
 * The text fields every freeze must fill in: what the parser reads as strings and what the
 * shape gate reports as `missing-field` when blank (`approved_by` is text too, but optional).
 */
export const FREEZE_REQUIRED_TEXT = [
  "test_id",
  "reason",
  "owner",
  "opened",
  "expires",
  "invariant",
  "compensating_property",
] as const satisfies readonly (keyof Freeze)[];

export interface Property {
  id: string;
  /** The property test's node id. */
  check: string;
  /** Example tests that would also catch a violation (the property's witnesses). */
  witnessed_by: string[];
  invariant?: string;
}

/**
 * Which file format the ledger was read from (the older formats are read as they are). The ids
 * are values of the JSON reports' ledger format field (docs/json-contract.md), so they stay as
 * they are; messages name the formats with describeSource.
 */
export type LedgerSource =
  | "freezegate" // our own format: {"version": 1, "policy", "freezes", "properties"}
  | "seed-004-ledger" // a freeze ledger of schema 1: {"schema": 1, "max_window_days", "freezes"}
  | "seed-003-properties" // a properties file: {"properties": [...], "frozen": [...]}
  | "seed-000-quarantine"; // a quarantine list: {"frozen": [...]}

/**
 * A ledger as read. Freezes from files that carry only ids (a quarantine list, a properties
 * file) have empty strings for what the file did not say; the shape gate reports those as
 * missing.
 */
export interface Ledger {
  source: LedgerSource;
  policy: LedgerPolicy;
  freezes: Freeze[];
  properties: Property[];
}
