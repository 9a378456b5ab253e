// Configuration defaults from `[tool.freezegate]` (pyproject.toml) or the "freezegate" key of
// package.json. Keys are the long flag names. Unknown keys are an error: a misspelt
// "fail_on" silently ignored would loosen the gate without anyone noticing.
// Precedence: command-line flags > the config file > built-in defaults.

import { refusal } from "./refusals/index.js";

type KeyKind = "string" | "boolean" | "string[]";

/** Every key a config file may set, with its type. */
export const CONFIG_KEYS: Record<string, KeyKind> = {
  base: "string",
  coverage: "string",
  frozen: "string",
  "path-map": "string[]",
  "test-files": "string[]",
  "source-files": "string[]",
  "fail-on": "string[]",
  "allow-unresolved": "boolean",
  format: "string",
  "test-root": "string",
  ledger: "string",
};

export type ConfigValue = string | boolean | string[];
export type ConfigValues = Record<string, ConfigValue>;

export interface LoadedConfig {
  /** Where the values came from ("pyproject.toml [tool.freezegate]"), or null for none. */
  source: string | null;
  /** The file the values came from (absolute), or null for none. */
  path: string | null;
  values: ConfigValues;
}

/** Check a raw config table; returns the values or throws one line per first problem. */
export function validateConfig(raw: unknown, source: string): ConfigValues {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw refusal("config-not-a-table", { source });
  }
  const values: ConfigValues = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const kind = CONFIG_KEYS[key];
    if (!kind) {
      throw refusal("config-unknown-key", {
        source,
        key,
        hint: suggestKey(key),
        keys: Object.keys(CONFIG_KEYS).sort().join(", "),
      });
    }
    const ok =
      kind === "string"
        ? typeof value === "string"
        : kind === "boolean"
          ? typeof value === "boolean"
          : Array.isArray(value) && value.every((v) => typeof v === "string");
    if (!ok) {
      const want =
        kind === "string[]"
          ? "a list of strings"
          : kind === "string"
            ? "a string"
            : "true or false";
      throw refusal("config-wrong-type", { source, key, want });
    }
    // An empty string is an unfilled template or variable, never a setting: taken as given,
    // `fail-on = [""]` or `base = ""` would quietly weaken the gate.
    const blank = (v: unknown) => typeof v === "string" && v.trim() === "";
    if (blank(value) || (Array.isArray(value) && value.some(blank))) {
      throw refusal("config-empty-value", { source, key });
    }
    values[key] = value as ConfigValue;
  }
  return values;
}

function suggestKey(key: string): string | null {
  const norm = key.toLowerCase().replace(/_/g, "-");
  if (CONFIG_KEYS[norm]) return norm;
  for (const known of Object.keys(CONFIG_KEYS)) {
    if (known.replace(/-/g, "") === norm.replace(/-/g, "")) return known;
  }
  return null;
}
