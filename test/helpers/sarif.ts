// Validates SARIF logs against the official SARIF 2.1.0 JSON Schema (OASIS errata 01, committed
// unchanged in test/fixtures/sarif/). That schema is written in JSON Schema draft-04, which
// Ajv 8 does not read (ajv-draft-04 would be another dependency). The schema uses nothing that
// differs between draft-04 and draft-07 except the root's "id" (draft-07: "$id") and the
// "$schema" URI: no boolean exclusiveMinimum/exclusiveMaximum, no other "id" keyword. So it is
// checked to be exactly that, those two keys are renamed in memory, and Ajv validates in
// draft-07 mode with every format checked (uri, uri-reference, date-time).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { REPO_ROOT } from "./cli.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const SARIF_SCHEMA_PATH = join(REPO_ROOT, "test/fixtures/sarif/sarif-schema-2.1.0.json");

function draft07Schema(): Record<string, unknown> {
  const text = readFileSync(SARIF_SCHEMA_PATH, "utf8");
  const schema = JSON.parse(text) as Record<string, unknown>;
  if (schema.$schema !== "http://json-schema.org/draft-04/schema#") {
    throw new Error(`unexpected $schema in the SARIF schema: ${String(schema.$schema)}`);
  }
  // The draft-04-only constructs that would change meaning under draft-07 must be absent.
  if (/"exclusiveM(in|ax)imum"/.test(text) || (text.match(/"id":\s*"/g) ?? []).length !== 1) {
    throw new Error("the SARIF schema uses draft-04 constructs this conversion does not handle");
  }
  const { id, $schema: _, ...rest } = schema;
  return { $schema: "http://json-schema.org/draft-07/schema#", $id: id, ...rest };
}

let validate: ReturnType<Ajv["compile"]> | null = null;

/** Throws with every violation when `log` is not a valid SARIF 2.1.0 log. */
export function validateSarif(log: unknown): void {
  if (validate === null) {
    // strict off: the published schema has keywords Ajv's strict mode objects to by design
    // (e.g. "default" next to "$ref"); they do not change what is valid.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(draft07Schema());
  }
  if (!validate(log)) {
    throw new Error(`SARIF 2.1.0: ${new Ajv().errorsText(validate.errors, { separator: "\n" })}`);
  }
}
