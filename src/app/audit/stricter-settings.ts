// What a patch cannot loosen for itself: when it changes the root's config file, the settings
// at its base count too, and it is judged by the stricter of both.

import { relative } from "node:path";
import { CONFIG_FILES, loadConfig } from "../../adapters/config-files.js";
import type { ConfigValues } from "../../core/config.js";
import { sameStrings } from "../../core/listing.js";
import type { ChangedFile, Patch } from "../../core/model.js";
import { baseRevisionOf } from "../../core/patch-base.js";
import type { PathRule } from "../../core/path-map.js";
import type { FailableVerdict } from "../../core/shadow-audit.js";
import type { RunnerFiles } from "../../runners/runner.js";
import { configValuesAt, type FrozenChoice } from "../patch-settings.js";

/** The audit settings a config file can give. */
export interface ConfigurableSettings {
  /** Changed files that are tests, not audited; undefined: the runner's defaults. */
  testGlobs?: string[] | undefined;
  /** Changed files that are audited; undefined: the runner's defaults. */
  sourceGlobs?: string[] | undefined;
  failOn: FailableVerdict[];
  pathMap: PathRule[];
}

/** The settings with the runner's default globs where none were given. */
export type Settings = ConfigurableSettings & { testGlobs: string[]; sourceGlobs: string[] };

/** `settings` with the runner's default globs where it gives none. */
export function withDefaultGlobs<T extends ConfigurableSettings>(
  settings: T,
  files: Pick<RunnerFiles, "defaultTestGlobs" | "defaultSourceGlobs">,
): T & Settings {
  return {
    ...settings,
    testGlobs: settings.testGlobs ?? [...files.defaultTestGlobs],
    sourceGlobs: settings.sourceGlobs ?? [...files.defaultSourceGlobs],
  };
}

/**
 * The other things a config (with the flags) decides that a patch must not choose for itself:
 * a patch that changes them is refused (base, coverage: no stricter value of both exists) or
 * judged by the stricter reading (allow-unresolved, the frozen list).
 */
export interface ConfigChoices {
  frozen: FrozenChoice;
  /** The data path (absolute), or undefined to discover it. */
  coverage: string | undefined;
  allowUnresolved: boolean;
  /** The range's base, from a flag or the config; undefined when neither gives one. */
  base: string | undefined;
}

/** The settings a config with these values gives, with the command's flags applied. */
export type SettingsFor = (values: ConfigValues) => ConfigurableSettings & ConfigChoices;

export interface TestAndSourceGlobs {
  testGlobs: readonly string[];
  sourceGlobs: readonly string[];
  /** The base config's test globs when the patch changed them: a test file matches both. */
  baseTestGlobs?: readonly string[];
}

/** The stricter settings, and which keys the patch changed (for notes). */
export interface SettingsChange {
  /** The commit whose config was compared ("HEAD" for a staged or work-tree patch). */
  base: string;
  /** The keys whose effective value differs between the base's config and the patch's. */
  changed: string[];
  /**
   * The patch reads its frozen tests from another file than its base did: the tests frozen in
   * either count. `tests`: those frozen only in the base's list.
   */
  frozen?: { files: string[]; now: string; tests: string[] };
}

/** The settings as the flags and the patch's own config give them. */
export type SettingsAsGiven = ConfigurableSettings & {
  /** How a config gives them (with the same flags); undefined: they are taken as given. */
  settingsFor?: SettingsFor | undefined;
};

/** The stricter of the patch's settings and its base's (see stricterSettings). */
export interface StricterSettings {
  settings: Settings & TestAndSourceGlobs & { basePathMap?: PathRule[] };
  change: SettingsChange;
  /** Settings the patch changed that no stricter value settles: what it says now and then. */
  pinned: Array<{ key: "base" | "coverage"; now: string; atBase: string }>;
  /** The base's config does not allow unresolved frozen ids, the patch's does. */
  unresolvedWaived: boolean;
}

/**
 * When the patch changes the root's config file (pyproject.toml, package.json), the settings
 * at the patch's base (the merge base of a range; HEAD for a staged or work-tree patch), with
 * the same flags, combined with the patch's own into the stricter of both: every fail-on
 * verdict of either; a file is a test file (not audited) only when both configs say so, and
 * a source file when either does; unresolved frozen ids are allowed only when both allow them.
 * What cannot be combined (the range's base, the data) is `pinned`: the caller
 * refuses the patch where it matters. A base config that cannot be read counts as no config.
 * Null when the config did not change or there is no base (a user's diff).
 */
export async function stricterSettings(
  root: string,
  patch: Patch,
  asGiven: SettingsAsGiven,
  /** The runner's default globs, for settings that give none. */
  files: Pick<RunnerFiles, "defaultTestGlobs" | "defaultSourceGlobs">,
): Promise<StricterSettings | null> {
  const { settingsFor } = asGiven;
  if (settingsFor === undefined) return null;
  const request = withDefaultGlobs(asGiven, files);
  const base = baseRevisionOf(patch);
  const names: readonly string[] = CONFIG_FILES;
  const touched = (f: ChangedFile) =>
    names.includes(f.path) || (f.oldPath !== null && names.includes(f.oldPath));
  if (base === null || !patch.files.some(touched)) return null;
  const then = withDefaultGlobs(settingsFor(await configValuesAt(root, base)), files);
  const now = settingsFor(loadConfig(root).values);
  const union = <T>(a: readonly T[], b: readonly T[]): T[] => [...new Set([...a, ...b])];
  const changed = (["failOn", "testGlobs", "sourceGlobs"] as const).filter(
    (key) => !sameStrings(then[key], request[key]),
  );
  const pathMapChanged = JSON.stringify(then.pathMap) !== JSON.stringify(request.pathMap);
  const unresolvedWaived = now.allowUnresolved && !then.allowUnresolved;
  const shown = (value: string | undefined, key: string) =>
    value === undefined ? `no ${key}` : key === "coverage" ? relative(root, value) : value;
  const pinned = (
    [
      // The config's base chooses the range only for a range.
      ...(patch.source.kind === "range" ? [["base", "base"] as const] : []),
      ["coverage", "coverage"],
    ] as const
  )
    .filter(([field]) => then[field] !== now[field])
    .map(([field, key]) => ({ key, now: shown(now[field], key), atBase: shown(then[field], key) }));
  if (changed.length === 0 && !pathMapChanged && !unresolvedWaived && pinned.length === 0) {
    return null;
  }
  return {
    settings: {
      failOn: union(request.failOn, then.failOn),
      testGlobs: request.testGlobs,
      baseTestGlobs: then.testGlobs,
      sourceGlobs: union(request.sourceGlobs, then.sourceGlobs),
      pathMap: request.pathMap,
      ...(pathMapChanged ? { basePathMap: then.pathMap } : {}),
    },
    change: {
      base,
      changed: [
        ...changed.map(
          (key) =>
            ({ failOn: "fail-on", testGlobs: "test-files", sourceGlobs: "source-files" })[key],
        ),
        ...(pathMapChanged ? ["path-map"] : []),
        ...(unresolvedWaived ? ["allow-unresolved"] : []),
      ],
    },
    pinned,
    unresolvedWaived,
  };
}

/** The same strings in the same order. */
