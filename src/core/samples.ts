// The samples artifact: how many distinct inputs each property test really ran on, written by
// the test runner (the pytest plugin of a later issue) and read by the deposit gate. A
// compensating property that ran on one hard-coded tuple is a renamed example test; this file
// is the evidence that it did not. Parsed strictly: a misread count would pass a weak deposit.
//
// Two shapes are read (docs/samples-artifact.md):
//   freezegate's own:  {"version": 2, "commit": "<sha>", "properties": {"<node id>":
//                      {"distinct": 12}, ...}}; the commit ties the counts to the run of
//                      the commit being gated (version 1 had none: refused, see below)
//   a session count:   {"distinct": 12}  (one count for the whole session, applied to every
//                      compensating property: the conftest hook that writes it cannot tell
//                      them apart)

import { jsonValueText } from "./json-text.js";
import { refusal } from "./refusals/index.js";

export const SAMPLES_VERSION = 2;

/** The pytest plugin's name in the artifacts it writes ("tool"). */
export const PLUGIN_TOOL = "pytest-freezegate";

/** A full lowercase commit id (SHA-1 or SHA-256), as `git rev-parse` prints it. */
const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export type SamplesArtifact =
  | {
      kind: "per-property";
      /** The commit the tests ran at, or null when the runner could not tell. */
      commit: string | null;
      /** Who wrote it ("pytest-freezegate" for the plugin), when it says. */
      tool?: string;
      /** The file, as named in messages. */
      label: string;
      /** Property test node id -> distinct inputs it ran on. */
      properties: ReadonlyMap<string, number>;
    }
  | {
      /** A single session-wide count. */
      kind: "session";
      distinct: number;
    };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(label: string, at: string, problem: string): never {
  throw refusal("samples-malformed", { label, at, problem });
}

function count(value: unknown, label: string, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(label, where, `must be a whole number >= 0, not ${jsonValueText(value)}`);
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
    onlyKeys(value, ["distinct"], label, 'the session count {"distinct": N}');
    return { kind: "session", distinct: count(value.distinct, label, '"distinct"') };
  }
  if (value.version === 1) {
    throw refusal("samples-version-1", { label });
  }
  if (value.version !== SAMPLES_VERSION) {
    fail(
      label,
      '"version"',
      `is ${jsonValueText(value.version)}; this freezegate reads version ${SAMPLES_VERSION} (or a session count {"distinct": N})`,
    );
  }
  onlyKeys(value, ["version", "tool", "commit", "properties"], label, "the top level");
  const tool = value.tool;
  if (tool !== undefined && (typeof tool !== "string" || tool.trim() === "")) {
    fail(label, '"tool"', `is ${JSON.stringify(tool)}, not the name of the runner that wrote it`);
  }
  if (!("commit" in value)) fail(label, "the top level", 'lacks "commit"');
  const commit = value.commit;
  if (commit !== null && (typeof commit !== "string" || !COMMIT.test(commit))) {
    fail(label, '"commit"', `is ${JSON.stringify(commit)}, not a full lowercase commit id or null`);
  }
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
  return {
    kind: "per-property",
    commit: commit as string | null,
    label,
    properties,
    ...(tool === undefined ? {} : { tool: tool as string }),
  };
}

/**
 * Refuse counts that were not recorded at the commit being gated (`head`): a samples file
 * restored from a cache, kept from an earlier run or edited by hand would vouch for inputs
 * this commit's properties never ran on. A session count records no commit; the gate notes it.
 */
export function requireSamplesAt(samples: SamplesArtifact, head: string): void {
  if (samples.kind === "session") return;
  if (samples.commit === null) {
    throw refusal("samples-no-commit", { label: samples.label, head });
  }
  if (samples.commit !== head) {
    throw refusal("samples-other-commit", { label: samples.label, commit: samples.commit, head });
  }
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
