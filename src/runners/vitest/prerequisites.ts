// What a project needs before freezegate's Vitest recorder can run in it, and the file names
// Vitest reads its configuration from. Pure: the adapter (src/adapters/vitest-files.ts) reads
// the installed packages, this decides what is missing and how to fix it.

import type { FreezegateError } from "../../core/errors.js";
import { refusal } from "../../core/refusals/index.js";
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

function nodeOutside(node: string, who: string, range: string | null): FreezegateError | null {
  if (range === null || versionInRange(node, range) !== false) return null;
  return refusal("vitest-node-unsupported", { node, who, range });
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
    throw refusal("vitest-package-missing", {
      name: "Vitest",
      why: "there is no node_modules/vitest",
      install: "vitest @vitest/coverage-istanbul",
    });
  }
  const mm = majorMinor(vitest.version);
  if (mm === null || !((mm[0] === 3 && mm[1] >= 2) || mm[0] === 4 || mm[0] === 5)) {
    throw refusal("vitest-package-version", {
      shown: vitest.shown,
      version: vitest.version,
      why: "freezegate records per-test coverage with Vitest 3.2, 4.x and 5.x",
      install: "vitest@5 @vitest/coverage-istanbul@5",
    });
  }
  const wanted = `@vitest/coverage-istanbul@${vitest.version}`;
  if (istanbul === null) {
    throw refusal("vitest-package-missing", {
      name: "@vitest/coverage-istanbul",
      why: "freezegate records per-test coverage from istanbul's counters",
      install: wanted,
    });
  }
  if (istanbul.version !== vitest.version) {
    throw refusal("vitest-package-version", {
      shown: istanbul.shown,
      version: istanbul.version,
      why: `Vitest is ${vitest.version} and needs its coverage provider at exactly its own version`,
      install: wanted,
    });
  }
  if (freezegate === null) {
    throw refusal("vitest-package-missing", {
      name: "freezegate",
      why: `Vitest loads its runner (${RUNNER_MODULE}) from node_modules`,
      install: "freezegate",
    });
  }
  if (!freezegate.exports.includes("./vitest/runner")) {
    throw refusal("vitest-package-version", {
      shown: freezegate.shown,
      version: freezegate.version,
      why: `it has no Vitest runner (${RUNNER_MODULE})`,
      install: "freezegate@latest",
    });
  }
  const node =
    nodeOutside(facts.node, `Vitest ${vitest.version}`, vitest.engines) ??
    nodeOutside(facts.node, "freezegate", facts.toolEngines);
  if (node !== null) throw node;
  return vitest.version;
}
