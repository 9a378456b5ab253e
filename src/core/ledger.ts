// Reading and writing the freeze ledger. Parsing is strict about STRUCTURE: a value that is not
// one of the known formats, an unknown key anywhere, a wrong type, a gate name we do not know
// or a generator-lock path outside the repository stops the run (InputError naming the file
// and the JSON path), because a misread ledger would silently loosen every gate.
// CONTENT problems inside a freeze (an empty owner, "2026-02-30", an expired date) are not
// parse errors: a missing freeze field is read as "" (or false) and the shape gate reports
// it, so that `ledger check` can list every such problem at once instead of stopping at the
// first, and so that the id-only files (a quarantine list, a properties file) can be read.
//
// Formats read (see LedgerSource):
//   freezegate's own   {"$schema"?, "version": 1, "policy"?, "freezes"?, "properties"?}
//   freeze ledger, schema 1   {"schema": 1, "max_window_days"?, "freezes": [...]}
//   properties file           {"properties": [...], "frozen"?: [...]}
//   quarantine list           {"frozen": [...]}
// (Their LedgerSource ids, "seed-004-ledger" and so on, are values of the JSON reports' ledger
// format field, so they stay as they are; users read describeSource's names.)
// Writing always writes freezegate's own format, in a fixed key order with sorted entries so
// that review diffs stay small.

import type { FreezegateError } from "./errors.js";
import { jsonValueText } from "./json-text.js";
import {
  DEFAULT_POLICY,
  FREEZE_REQUIRED_TEXT,
  type Freeze,
  GATES,
  type Gate,
  LEDGER_VERSION,
  type Ledger,
  type LedgerPolicy,
  type LedgerSource,
  type Property,
} from "./ledger-model.js";
import { refusal } from "./refusals/index.js";

/** Where editors find the ledger's JSON Schema (the package publishes schema/). */
export const LEDGER_SCHEMA_URL = "https://unpkg.com/freezegate@0/schema/ledger.schema.json";

/** Ledger versions this build reads. */
export const READABLE_VERSIONS: readonly number[] = [LEDGER_VERSION];

const TOP_KEYS = ["$schema", "version", "policy", "freezes", "properties"] as const;
const POLICY_KEYS = [
  "max_window_days",
  "min_distinct",
  "blocking",
  "generator_lock",
  "require_approval",
  "min_compensation",
] as const;
const FREEZE_KEYS = [...FREEZE_REQUIRED_TEXT, "reused_property", "approved_by"] as const;
const PROPERTY_KEYS = ["id", "check", "witnessed_by", "invariant"] as const;

type Json = Record<string, unknown>;

/** A ledger with the default policy and nothing frozen. */
export function emptyLedger(): Ledger {
  return { source: "freezegate", policy: copyPolicy(DEFAULT_POLICY), freezes: [], properties: [] };
}

/** A freeze with every field empty except the test id (what id-only files say). */
export function idOnlyFreeze(testId: string): Freeze {
  return {
    test_id: testId,
    reason: "",
    owner: "",
    opened: "",
    expires: "",
    invariant: "",
    compensating_property: "",
    reused_property: false,
  };
}

/**
 * Parse the JSON value of a ledger file (any format above). `label` names the file in
 * messages. Throws InputError on structural problems; content problems are left to the
 * shape gate.
 */
export function parseLedger(value: unknown, label: string): Ledger {
  const p = new Parser(label);
  const top = p.object(value, "$");
  if ("version" in top) return parseOwn(p, top);
  if ("schema" in top) return parseSchemaOneLedger(p, top);
  // Keys only freezegate's own format has: such a file lost its "version" (read as an id
  // list, its "policy" would be an "unknown key", which sends the user the wrong way).
  const own = ["$schema", "policy", "freezes"].filter((key) => key in top);
  if (own.length > 0) {
    throw refusal("ledger-no-version", {
      label,
      at: "$",
      keys: own.map((key) => `"${key}"`).join(" and "),
      readable: READABLE_VERSIONS.join(", "),
    });
  }
  if ("properties" in top || "frozen" in top) return parseIdLists(p, top);
  throw refusal("ledger-not-a-ledger", { label, at: "$" });
}

function parseOwn(p: Parser, top: Json): Ledger {
  p.keys(top, "$", TOP_KEYS);
  const version = top.version;
  if (typeof version !== "number" || !READABLE_VERSIONS.includes(version)) {
    throw refusal("ledger-version-unknown", {
      label: p.label,
      at: "$.version",
      version: jsonValueText(version),
      readable: READABLE_VERSIONS.join(", "),
      newer: typeof version === "number" && version > LEDGER_VERSION,
    });
  }
  if ("$schema" in top) p.string(top.$schema, "$.$schema");
  const policy = "policy" in top ? parsePolicy(p, top.policy, "$.policy") : copyPolicy();
  const freezes = "freezes" in top ? parseFreezes(p, top.freezes, "$.freezes") : [];
  const properties = "properties" in top ? parseProperties(p, top.properties, "$.properties") : [];
  return { source: "freezegate", policy, freezes, properties };
}

function parseSchemaOneLedger(p: Parser, top: Json): Ledger {
  p.keys(top, "$", ["schema", "max_window_days", "freezes"]);
  if (top.schema !== 1) {
    throw refusal("ledger-schema-unknown", {
      label: p.label,
      at: "$.schema",
      schema: String(JSON.stringify(top.schema)),
    });
  }
  const policy = copyPolicy();
  if ("max_window_days" in top) {
    policy.max_window_days = p.positiveInteger(
      top.max_window_days,
      "$.max_window_days",
      DEFAULT_POLICY.max_window_days,
    );
  }
  if (!("freezes" in top)) throw refusal("ledger-no-freezes", { label: p.label, at: "$" });
  return source("seed-004-ledger", policy, parseFreezes(p, top.freezes, "$.freezes"), []);
}

function parseIdLists(p: Parser, top: Json): Ledger {
  p.keys(top, "$", ["properties", "frozen"]);
  const frozen = "frozen" in top ? p.array(top.frozen, "$.frozen") : [];
  const freezes = frozen.map((item, i) => idOnlyFreeze(p.nonEmpty(item, `$.frozen[${i}]`)));
  if ("properties" in top) {
    const properties = parseProperties(p, top.properties, "$.properties");
    return source("seed-003-properties", copyPolicy(), freezes, properties);
  }
  return source("seed-000-quarantine", copyPolicy(), freezes, []);
}

function source(
  kind: LedgerSource,
  policy: LedgerPolicy,
  freezes: Freeze[],
  properties: Property[],
): Ledger {
  return { source: kind, policy, freezes, properties };
}

function parsePolicy(p: Parser, value: unknown, path: string): LedgerPolicy {
  const raw = p.object(value, path);
  p.keys(raw, path, POLICY_KEYS);
  const policy = copyPolicy();
  if ("max_window_days" in raw) {
    policy.max_window_days = p.positiveInteger(
      raw.max_window_days,
      `${path}.max_window_days`,
      DEFAULT_POLICY.max_window_days,
    );
  }
  if ("min_distinct" in raw) {
    policy.min_distinct = p.positiveInteger(
      raw.min_distinct,
      `${path}.min_distinct`,
      DEFAULT_POLICY.min_distinct,
    );
  }
  if ("blocking" in raw) {
    const seen = new Set<Gate>();
    p.array(raw.blocking, `${path}.blocking`).forEach((item, i) => {
      const at = `${path}.blocking[${i}]`;
      if (typeof item !== "string" || !(GATES as readonly string[]).includes(item)) {
        throw refusal("ledger-unknown-gate", {
          label: p.label,
          at,
          value: String(JSON.stringify(item)),
          gates: GATES.join(", "),
        });
      }
      if (seen.has(item as Gate)) {
        throw refusal("ledger-gate-repeated", { label: p.label, at, gate: item });
      }
      seen.add(item as Gate);
    });
    policy.blocking = GATES.filter((g) => seen.has(g));
  }
  if ("generator_lock" in raw) {
    policy.generator_lock = p
      .array(raw.generator_lock, `${path}.generator_lock`)
      .map((item, i) => checkRepoPath(p, item, `${path}.generator_lock[${i}]`));
  }
  if ("require_approval" in raw) {
    policy.require_approval = p.boolean(raw.require_approval, `${path}.require_approval`);
  }
  if ("min_compensation" in raw) {
    policy.min_compensation = p.fraction(raw.min_compensation, `${path}.min_compensation`);
  }
  return policy;
}

/** A repository-relative POSIX path (a file or glob) that cannot leave the repository. */
function checkRepoPath(p: Parser, value: unknown, path: string): string {
  const text = p.nonEmpty(value, path, "path");
  const problem = text.includes("\\")
    ? "backslash"
    : text.startsWith("/") || /^[A-Za-z]:/.test(text)
      ? "absolute"
      : text.split("/").includes("..")
        ? "escapes"
        : null;
  if (problem !== null) {
    throw refusal("ledger-bad-repo-path", { label: p.label, at: path, path: text, problem });
  }
  return text;
}

function parseFreezes(p: Parser, value: unknown, path: string): Freeze[] {
  return p.array(value, path).map((item, i) => {
    const at = `${path}[${i}]`;
    const raw = p.object(item, at);
    p.keys(raw, at, FREEZE_KEYS);
    const freeze = idOnlyFreeze("");
    for (const field of FREEZE_REQUIRED_TEXT) {
      if (field in raw) freeze[field] = p.string(raw[field], `${at}.${field}`);
    }
    if ("reused_property" in raw) {
      freeze.reused_property = p.boolean(raw.reused_property, `${at}.reused_property`);
    }
    if ("approved_by" in raw) freeze.approved_by = p.string(raw.approved_by, `${at}.approved_by`);
    return freeze;
  });
}

function parseProperties(p: Parser, value: unknown, path: string): Property[] {
  const seen = new Map<string, number>();
  return p.array(value, path).map((item, i) => {
    const at = `${path}[${i}]`;
    const raw = p.object(item, at);
    p.keys(raw, at, PROPERTY_KEYS);
    const property: Property = {
      id: "id" in raw ? p.string(raw.id, `${at}.id`) : "",
      check: "check" in raw ? p.string(raw.check, `${at}.check`) : "",
      // A missing list reads as "no witnesses recorded", as the properties file's own tools read it.
      witnessed_by:
        "witnessed_by" in raw
          ? p
              .array(raw.witnessed_by, `${at}.witnessed_by`)
              .map((w, j) => p.nonEmpty(w, `${at}.witnessed_by[${j}]`))
          : [],
    };
    if ("invariant" in raw) property.invariant = p.string(raw.invariant, `${at}.invariant`);
    // Properties are referred to by id (findings, the witness gate); two with one id cannot
    // be told apart, and there is no finding code for it, so it is a structural error.
    const first = seen.get(property.id);
    if (property.id !== "" && first !== undefined) {
      throw refusal("ledger-property-id-repeated", {
        label: p.label,
        at: `${at}.id`,
        id: property.id,
        first: `${path}[${first}]`,
      });
    }
    seen.set(property.id, i);
    return property;
  });
}

function copyPolicy(policy: LedgerPolicy = DEFAULT_POLICY): LedgerPolicy {
  return {
    ...policy,
    blocking: [...policy.blocking],
    generator_lock: [...policy.generator_lock],
  };
}

/** Structural checks that name the file and the JSON path of the first problem. */
class Parser {
  constructor(readonly label: string) {}

  /** A value of another type than `expected`. */
  wrongType(
    value: unknown,
    at: string,
    expected: "an object" | "a list" | "a string" | "true or false",
  ) {
    return refusal("ledger-wrong-type", {
      label: this.label,
      at,
      value: describe(value),
      expected,
    });
  }

  object(value: unknown, path: string): Json {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw this.wrongType(value, path, "an object");
    }
    return value as Json;
  }

  keys(value: Json, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        throw refusal("ledger-unknown-key", {
          label: this.label,
          at: path,
          key,
          allowed: allowed.join(", "),
        });
      }
    }
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) {
      throw this.wrongType(value, path, "a list");
    }
    return value;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== "string") {
      throw this.wrongType(value, path, "a string");
    }
    return value;
  }

  /** A non-blank string: a test id unless told it is a path. */
  nonEmpty(value: unknown, path: string, what: "test id" | "path" = "test id"): string {
    const text = this.string(value, path);
    if (text.trim() === "")
      throw refusal("ledger-empty-value", { label: this.label, at: path, what });
    return text;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== "boolean") {
      throw this.wrongType(value, path, "true or false");
    }
    return value;
  }

  /** A number from 0 to 1 (a share). */
  fraction(value: unknown, path: string): number {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
      throw refusal("ledger-not-a-share", { label: this.label, at: path, value: describe(value) });
    }
    return value;
  }

  /** A whole number >= 1; the fix suggests the key's default (`example`). */
  positiveInteger(value: unknown, path: string, example: number): number {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw refusal("ledger-not-positive", {
        label: this.label,
        at: path,
        value: describe(value),
        example,
      });
    }
    return value;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return jsonValueText(value);
}

// ---------------------------------------------------------------------------------------------
// Writing.

/** Code-unit order: the same on every machine, unlike localeCompare. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The ledger as freezegate's own format: fixed key order, 2-space indentation, trailing
 * newline, freezes sorted by test id and properties by id (stable, so duplicates keep their
 * order). serializeLedger(parseLedger(JSON.parse(serializeLedger(x)))) === serializeLedger(x).
 */
export function serializeLedger(ledger: Ledger): string {
  const policy = ledger.policy;
  const doc = {
    $schema: LEDGER_SCHEMA_URL,
    version: LEDGER_VERSION,
    policy: {
      max_window_days: policy.max_window_days,
      min_distinct: policy.min_distinct,
      blocking: GATES.filter((g) => policy.blocking.includes(g)),
      generator_lock: [...policy.generator_lock],
      require_approval: policy.require_approval,
      ...(policy.min_compensation === undefined
        ? {}
        : { min_compensation: policy.min_compensation }),
    },
    freezes: [...ledger.freezes]
      .sort((a, b) => byText(a.test_id, b.test_id))
      .map((f) => ({
        test_id: f.test_id,
        reason: f.reason,
        owner: f.owner,
        opened: f.opened,
        expires: f.expires,
        invariant: f.invariant,
        compensating_property: f.compensating_property,
        reused_property: f.reused_property,
        ...(f.approved_by === undefined ? {} : { approved_by: f.approved_by }),
      })),
    properties: [...ledger.properties]
      .sort((a, b) => byText(a.id, b.id))
      .map((prop) => ({
        id: prop.id,
        check: prop.check,
        witnessed_by: [...prop.witnessed_by],
        ...(prop.invariant === undefined ? {} : { invariant: prop.invariant }),
      })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Merging (ledger migrate).

export interface LedgerSourceFile {
  label: string;
  ledger: Ledger;
}

/** A freeze that says nothing but its test id (what quarantine.json / properties.json give). */
export function isIdOnly(f: Freeze): boolean {
  return (
    f.reason === "" &&
    f.owner === "" &&
    f.opened === "" &&
    f.expires === "" &&
    f.invariant === "" &&
    f.compensating_property === "" &&
    !f.reused_property &&
    f.approved_by === undefined
  );
}

function firstDifference(a: object, b: object): string {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (JSON.stringify(left[key]) !== JSON.stringify(right[key])) {
      return `${key}: ${JSON.stringify(left[key]) ?? "absent"} vs ${JSON.stringify(right[key]) ?? "absent"}`;
    }
  }
  return "";
}

function conflict(what: string, first: string, second: string, diff: string): FreezegateError {
  return refusal("ledger-migrate-conflict", { what, first, second, difference: diff });
}

/**
 * One ledger from several (ledger migrate). A test frozen in several files merges when the
 * entries agree, and an id-only entry gives way to a full record of the same test; entries
 * that disagree (or two policies that differ) are an InputError naming both files.
 */
export function mergeLedgers(sources: readonly LedgerSourceFile[]): Ledger {
  const merged = emptyLedger();
  let policyFrom: string | null = null;
  const freezes = new Map<string, { freeze: Freeze; from: string }>();
  const unnamed: Freeze[] = [];
  const properties = new Map<string, { property: Property; from: string }>();
  for (const { label, ledger } of sources) {
    // Only these formats carry a policy; the id-only files say nothing about it.
    if (ledger.source === "freezegate" || ledger.source === "seed-004-ledger") {
      if (policyFrom !== null && !samePolicy(merged.policy, ledger.policy)) {
        throw conflict(
          "the policy",
          policyFrom,
          label,
          firstDifference(merged.policy, ledger.policy),
        );
      }
      merged.policy = ledger.policy;
      policyFrom = label;
    }
    for (const freeze of ledger.freezes) {
      if (freeze.test_id === "") {
        unnamed.push(freeze);
        continue;
      }
      const seen = freezes.get(freeze.test_id);
      if (!seen || (isIdOnly(seen.freeze) && !isIdOnly(freeze))) {
        freezes.set(freeze.test_id, { freeze, from: label });
      } else if (!isIdOnly(freeze) && firstDifference(seen.freeze, freeze) !== "") {
        throw conflict(
          `the freeze of ${freeze.test_id}`,
          seen.from,
          label,
          firstDifference(seen.freeze, freeze),
        );
      }
    }
    for (const property of ledger.properties) {
      const seen = properties.get(property.id);
      if (!seen) properties.set(property.id, { property, from: label });
      else if (firstDifference(seen.property, property) !== "") {
        throw conflict(
          `property ${property.id}`,
          seen.from,
          label,
          firstDifference(seen.property, property),
        );
      }
    }
  }
  merged.freezes = [...[...freezes.values()].map((e) => e.freeze), ...unnamed];
  merged.properties = [...properties.values()].map((e) => e.property);
  return merged;
}

function samePolicy(a: LedgerPolicy, b: LedgerPolicy): boolean {
  return firstDifference(a, b) === "";
}

/** Human name of a ledger format, for messages. */
export function describeSource(kind: LedgerSource): string {
  switch (kind) {
    case "freezegate":
      return "freezegate ledger";
    case "seed-004-ledger":
      return "freeze ledger (schema 1)";
    case "seed-003-properties":
      return "properties file";
    case "seed-000-quarantine":
      return "quarantine list";
  }
}

export interface StricterPolicy {
  policy: LedgerPolicy;
  /** How `head` loosens `base`, one sentence per key (empty when it does not). */
  loosened: string[];
}

/**
 * The policy a patch is judged with: the stricter of the merge base's and its own, key by key,
 * so that a patch cannot switch off the gates that judge it by editing the policy in the same
 * diff (the loosening applies from the next patch on). Gates: either side's blocking ones;
 * inputs: the higher min_distinct; windows: the shorter max_window_days; locked generator
 * files: either side's entries; approval: required when either side requires it.
 */
export function stricterPolicy(base: LedgerPolicy, head: LedgerPolicy): StricterPolicy {
  const blocking = GATES.filter((g) => base.blocking.includes(g) || head.blocking.includes(g));
  const lockOnlyAtBase = base.generator_lock.filter((e) => !head.generator_lock.includes(e));
  const policy: LedgerPolicy = {
    max_window_days: Math.min(base.max_window_days, head.max_window_days),
    min_distinct: Math.max(base.min_distinct, head.min_distinct),
    blocking,
    generator_lock: [...head.generator_lock, ...lockOnlyAtBase],
    require_approval: base.require_approval || head.require_approval,
  };
  const minCompensation = stricterShare(base.min_compensation, head.min_compensation);
  if (minCompensation !== undefined) policy.min_compensation = minCompensation;
  const loosened: string[] = [];
  const unblocked = base.blocking.filter((g) => !head.blocking.includes(g));
  if (unblocked.length > 0) {
    loosened.push(`policy.blocking no longer lists ${unblocked.join(", ")}`);
  }
  if (head.min_distinct < base.min_distinct) {
    loosened.push(`policy.min_distinct lowered from ${base.min_distinct} to ${head.min_distinct}`);
  }
  if (head.max_window_days > base.max_window_days) {
    loosened.push(
      `policy.max_window_days raised from ${base.max_window_days} to ${head.max_window_days}`,
    );
  }
  if (lockOnlyAtBase.length > 0) {
    loosened.push(`policy.generator_lock no longer lists ${lockOnlyAtBase.join(", ")}`);
  }
  if (base.require_approval && !head.require_approval) {
    loosened.push("policy.require_approval switched off");
  }
  if (base.min_compensation !== undefined && head.min_compensation === undefined) {
    loosened.push("policy.min_compensation removed");
  } else if (
    base.min_compensation !== undefined &&
    head.min_compensation !== undefined &&
    head.min_compensation < base.min_compensation
  ) {
    loosened.push(
      `policy.min_compensation lowered from ${base.min_compensation} to ${head.min_compensation}`,
    );
  }
  return { policy, loosened };
}

/** The higher of two shares, where an absent one judges nothing (so either present wins). */
function stricterShare(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
