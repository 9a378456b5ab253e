// Validates reports against the published JSON Schemas in schema/, so the documented contract
// and the real output cannot drift apart.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { REPO_ROOT } from "./cli.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);

const cache = new Map<string, ReturnType<Ajv2020["compile"]>>();

/** Throws with every schema violation when `value` does not match schema/<name>. */
export function assertMatchesSchema(name: string, value: unknown): void {
  let validate = cache.get(name);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(join(REPO_ROOT, "schema", name), "utf8")));
    cache.set(name, validate);
  }
  if (!validate(value)) {
    throw new Error(`${name}: ${ajv.errorsText(validate.errors, { separator: "\n" })}`);
  }
}
