// docs/json-contract.md documents `impact --format json` field by field: this holds the
// built binary to that list (keys in order, `tests` as given, the rest sorted).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

const FULL = "tests/test_billing.py::test_full_period_charges_everything";
const REFUND = "tests/test_billing.py::test_refund_of_unused_days";

describe("impact --format json as docs/json-contract.md describes it", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeDemoRepo();
    repo.remove("quarantine.json");
    repo.write(
      "freeze-ledger.json",
      JSON.stringify({
        version: 1,
        freezes: [{ test_id: "tests/test_billing.py::test_refund_*" }],
        properties: [{ id: "p", check: FULL, witnessed_by: [REFUND] }],
      }),
    );
  });
  afterAll(() => repo.cleanup());

  it("has the documented fields, tests as given and the rest sorted", () => {
    const r = runCli(["impact", REFUND, FULL, REFUND, "--format", "json"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      schema: "freezegate/impact",
      schemaVersion: 1,
      tests: [REFUND, FULL],
      resolvedTests: [FULL, REFUND],
      alreadyFrozen: [REFUND],
      files: [
        {
          path: "src/billing/proration.py",
          lines: [14, 18, 20],
          fixtureOnly: [],
          ranges: "14, 18, 20",
        },
      ],
      lines: 3,
      witnessLoss: [
        {
          gate: "witness",
          code: "frozen-property-check",
          severity: "error",
          propertyId: "p",
          testId: FULL,
          message: `property p's own check ${FULL} is frozen`,
        },
      ],
      compensation: [],
      notes: [`already frozen in the ledger: ${REFUND}`],
      mutants: null,
    });
    expect(Object.keys(JSON.parse(r.stdout))).toEqual([
      "schema",
      "schemaVersion",
      "tests",
      "resolvedTests",
      "alreadyFrozen",
      "files",
      "lines",
      "witnessLoss",
      "compensation",
      "notes",
      "mutants",
    ]);
  });
});
