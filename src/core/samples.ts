// The samples artifact: how many distinct inputs each property test really ran on, written by
// the test runner (the pytest plugin of a later issue) and read by the deposit gate. A
// compensating property that ran on one hard-coded tuple is a renamed example test; this file
// is the evidence that it did not. Parsed strictly: a misread count would pass a weak deposit.
//
// Two shapes are read (docs/samples-artifact.md):
//   freezegate's own:  {"version": 1, "properties": {"<node id>": {"distinct": 12}, ...}}
//   seed 004's:        {"distinct": 12}  (one count for the whole session, applied to every
//                      compensating property: the seed's conftest cannot tell them apart)

import { InputError } from "./errors.js";

export const SAMPLES_VERSION = 1;

export type SamplesArtifact =
  | {
      kind: "per-property";
      /** Property test node id -> distinct inputs it ran on. */
      properties: ReadonlyMap<string, number>;
    }
  | {
      /** Seed 004's single session-wide count. */
      kind: "session";
      distinct: number;
    };

const FIX = `write {"version": ${SAMPLES_VERSION}, "properties": {"tests/props/test_x.py::test_y": {"distinct": 12}}} (see docs/samples-artifact.md)`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(label: string, where: string, problem: string): never {
  throw new InputError(`samples artifact ${label}: ${where} ${problem}`, { fix: FIX });
}

function count(value: unknown, label: string, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(label, where, `must be a whole number >= 0, not ${JSON.stringify(value)}`);
  }
  return value;
}

function onlyKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  label: string,
  where: string,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(label, where, `has unknown key "${key}" (allowed: ${allowed.join(", ")})`);
    }
  }
}

/** Parse a samples artifact (already JSON-decoded). Throws InputError on anything unexpected. */
export function parseSamples(value: unknown, label: string): SamplesArtifact {
  if (!isObject(value)) fail(label, "the top level", "must be a JSON object");
  if (!("version" in value) && "distinct" in value) {
    onlyKeys(value, ["distinct"], label, 'the seed format {"distinct": N}');
    return { kind: "session", distinct: count(value.distinct, label, '"distinct"') };
  }
  if (value.version !== SAMPLES_VERSION) {
    fail(
      label,
      '"version"',
      `is ${JSON.stringify(value.version)}; this freezegate reads version ${SAMPLES_VERSION} (or the seed's {"distinct": N})`,
    );
  }
  onlyKeys(value, ["version", "properties"], label, "the top level");
  if (!isObject(value.properties)) fail(label, '"properties"', "must be an object of node ids");
  const properties = new Map<string, number>();
  for (const [id, entry] of Object.entries(value.properties)) {
    const where = `properties["${id}"]`;
    if (id.trim() !== id || id.indexOf("::") <= 0) {
      fail(label, where, "is not a pytest node id (tests/test_x.py::test_y)");
    }
    if (!isObject(entry)) fail(label, where, 'must be an object like {"distinct": 12}');
    onlyKeys(entry, ["distinct"], label, where);
    if (!("distinct" in entry)) fail(label, where, 'lacks "distinct"');
    properties.set(id, count(entry.distinct, label, `${where}.distinct`));
  }
  return { kind: "per-property", properties };
}

/**
 * Distinct inputs recorded for a property test, or null when the artifact does not mention
 * it. A parametrized property recorded per case (`test_y[a]`, `test_y[b]`) counts as its
 * largest case: the cases' inputs may overlap, so a sum could claim inputs that never ran.
 */
export function distinctFor(samples: SamplesArtifact, propertyId: string): number | null {
  if (samples.kind === "session") return samples.distinct;
  const exact = samples.properties.get(propertyId);
  if (exact !== undefined) return exact;
  let best: number | null = null;
  const prefix = `${propertyId}[`;
  for (const [id, n] of samples.properties) {
    if (id.startsWith(prefix) && id.endsWith("]") && (best === null || n > best)) best = n;
  }
  return best;
}
