// Which installed Vitest versions `freezegate init vitest` accepts: the ones the recorder was run
// on for real (3.2, 4.x, 5.x), each with @vitest/coverage-istanbul at exactly its version.

import { describe, expect, it } from "vitest";
import { ConfigError, EnvironmentError } from "../../src/core/errors.js";
import {
  checkPrerequisites,
  type InstalledFacts,
  type InstalledPackage,
} from "../../src/runners/vitest/prerequisites.js";

function pkg(shown: string, version: string, exports: string[] = []): InstalledPackage {
  return { shown, version, engines: null, exports };
}

function facts(vitest: string, istanbul = vitest): InstalledFacts {
  return {
    vitest: pkg("node_modules/vitest", vitest),
    istanbul: pkg("node_modules/@vitest/coverage-istanbul", istanbul),
    freezegate: pkg("node_modules/freezegate", "0.1.0", ["./vitest/runner"]),
    node: "22.13.0",
    toolEngines: null,
  };
}

function refusal(f: InstalledFacts): ConfigError {
  try {
    checkPrerequisites(f);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("the Vitest versions init accepts", () => {
  it.each(["3.2.4", "4.1.12", "5.1.2"])("Vitest %s", (version) => {
    expect(checkPrerequisites(facts(version))).toBe(version);
  });

  it.each(["3.1.4", "2.1.9", "6.0.0"])(
    "refuses Vitest %s, naming the supported ones",
    (version) => {
      const error = refusal(facts(version));
      expect(error.code).toBe("vitest-package-version");
      expect(error.message).toBe(
        `node_modules/vitest is version ${version}: freezegate records per-test coverage with Vitest 3.2, 4.x and 5.x`,
      );
      expect(error.fix).toMatch(/^npm i -D vitest@5 @vitest\/coverage-istanbul@5,/);
    },
  );

  it("refuses Vitest 5 with a coverage provider of another version", () => {
    const error = refusal(facts("5.1.2", "4.1.12"));
    expect(error.code).toBe("vitest-package-version");
    expect(error.fix).toMatch(/^npm i -D @vitest\/coverage-istanbul@5\.1\.2,/);
  });
});

it("refuses a Node.js outside what freezegate supports", () => {
  const error = (() => {
    try {
      checkPrerequisites({ ...facts("4.1.12"), node: "20.19.0", toolEngines: ">=22.13.0" });
    } catch (caught) {
      return caught;
    }
    throw new Error("accepted");
  })();
  expect(error).toBeInstanceOf(EnvironmentError);
  expect(error).toMatchObject({
    code: "vitest-node-unsupported",
    message: "this Node.js (v20.19.0) is not one freezegate supports (>=22.13.0)",
  });
});
