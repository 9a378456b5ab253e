// What a project needs before freezegate's Vitest recorder can run in it, and the file names
// Vitest reads its configuration from. Pure: the adapter (src/adapters/vitest-files.ts) reads
// the installed packages, this decides what is missing and how to fix it.

import { ConfigError, EnvironmentError } from "../../core/errors.js";
import { majorMinor, versionInRange } from "../../core/version-range.js";
import { RUNNER_MODULE } from "./config-wiring.js";

const CONFIG_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** The files Vitest takes its configuration from, in the order it looks for them. */
export const VITEST_CONFIG_FILES = ["vitest.config", "vite.config"].flatMap((name) =>
  CONFIG_EXTENSIONS.map((ext) => name + ext),
);

/** Vitest 3's workspace files, next to the configuration file. */
export const VITEST_WORKSPACE_FILES = ["vitest.workspace", "vitest.projects"].flatMap((name) =>
  [...CONFIG_EXTENSIONS, ".json"].map((ext) => name + ext),
);

/** An installed package, as its package.json says. */
export interface InstalledPackage {
  /** Where it is, as shown to the user. */
  shown: string;
  version: string;
  engines: string | null;
  exports: readonly string[];
}

export interface InstalledFacts {
  vitest: InstalledPackage | null;
  istanbul: InstalledPackage | null;
  freezegate: InstalledPackage | null;
  /** The Node.js running this (process.versions.node). */
  node: string;
  /** freezegate's own `engines.node`. */
  toolEngines: string | null;
}

function nodeOutside(node: string, who: string, range: string | null): EnvironmentError | null {
  if (range === null || versionInRange(node, range) !== false) return null;
  return new EnvironmentError(`this Node.js (v${node}) is not one ${who} supports (${range})`, {
    fix: `run Vitest and freezegate on a Node.js in ${range}`,
  });
}

/**
 * Refuse (with the fix) what keeps the recorder from running: Vitest missing or of a version
 * it does not support, @vitest/coverage-istanbul missing or not at Vitest's exact version,
 * freezegate not installed where Vitest loads the runner from, a Node.js outside what Vitest
 * or freezegate support. Returns Vitest's version.
 */
export function checkPrerequisites(facts: InstalledFacts): string {
  const { vitest, istanbul, freezegate } = facts;
  if (vitest === null) {
    throw new ConfigError("Vitest is not installed in this project (no node_modules/vitest)", {
      fix: "npm i -D vitest @vitest/coverage-istanbul, then run freezegate init vitest again",
    });
  }
  const mm = majorMinor(vitest.version);
  if (mm === null || !((mm[0] === 3 && mm[1] >= 2) || mm[0] === 4 || mm[0] === 5)) {
    throw new ConfigError(
      `${vitest.shown} is Vitest ${vitest.version}: freezegate records per-test coverage with Vitest 3.2, 4.x and 5.x`,
      { fix: "npm i -D vitest@5 @vitest/coverage-istanbul@5" },
    );
  }
  const wanted = `@vitest/coverage-istanbul@${vitest.version}`;
  if (istanbul === null) {
    throw new ConfigError(
      "@vitest/coverage-istanbul is not installed: freezegate records per-test coverage from istanbul's counters",
      { fix: `npm i -D ${wanted}` },
    );
  }
  if (istanbul.version !== vitest.version) {
    throw new ConfigError(
      `${istanbul.shown} is ${istanbul.version}, Vitest is ${vitest.version}: Vitest needs its coverage provider at exactly its own version`,
      { fix: `npm i -D ${wanted}` },
    );
  }
  if (freezegate === null) {
    throw new ConfigError(
      `freezegate is not installed in this project, and Vitest loads its runner (${RUNNER_MODULE}) from node_modules`,
      { fix: "npm i -D freezegate, then run freezegate init vitest again" },
    );
  }
  if (!freezegate.exports.includes("./vitest/runner")) {
    throw new ConfigError(
      `${freezegate.shown} is freezegate ${freezegate.version}, which has no Vitest runner (${RUNNER_MODULE})`,
      { fix: "npm i -D freezegate@latest" },
    );
  }
  const node =
    nodeOutside(facts.node, `Vitest ${vitest.version}`, vitest.engines) ??
    nodeOutside(facts.node, "freezegate", facts.toolEngines);
  if (node !== null) throw node;
  return vitest.version;
}
