// Refusal codes are a contract with users: every code in the registry is listed in
// docs/refusals.md under its area's heading, and the page lists no code the registry lacks.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError, reworded, UsageError } from "../../src/core/errors.js";
import { input } from "../../src/core/refusals/define.js";
import { AREAS, combineAreas, REFUSALS, refusal } from "../../src/core/refusals/index.js";
import { REPO_ROOT } from "../helpers/cli.js";

/** The codes the page lists, by the `## ` heading they sit under (first cell of a table row). */
function documented(): Map<string, string[]> {
  const page = readFileSync(join(REPO_ROOT, "docs/refusals.md"), "utf8");
  const byHeading = new Map<string, string[]>();
  let heading = "";
  for (const line of page.split("\n")) {
    const h = /^## (.+)$/.exec(line);
    if (h) heading = h[1] as string;
    const row = /^\| `([^`]+)` \|/.exec(line);
    if (row) byHeading.set(heading, [...(byHeading.get(heading) ?? []), row[1] as string]);
  }
  return byHeading;
}

describe("docs/refusals.md and the registry", () => {
  it("lists every code of each area under the area's heading, and nothing else", () => {
    const docs = documented();
    for (const { title, table } of AREAS) {
      expect(docs.get(title)?.sort(), title).toEqual(Object.keys(table).sort());
    }
    const titles = AREAS.map((a) => a.title as string);
    expect([...docs.keys()].filter((h) => !titles.includes(h))).toEqual([]);
  });

  it("lists no code twice", () => {
    const all = [...documented().values()].flat();
    expect(all.length).toBe(new Set(all).size);
    expect(all.length).toBe(Object.keys(REFUSALS).length);
  });
});

describe("the registry", () => {
  const NOTE = input((v: { path: string }) => `cannot read ${v.path}`, "check it");

  it("refuses a code defined twice, in two areas or one", () => {
    expect(() =>
      combineAreas([
        { title: "A", table: { "same-code": NOTE } },
        { title: "B", table: { "same-code": NOTE } },
      ]),
    ).toThrow(/"same-code" is defined twice/);
  });

  it("refuses a code that is not kebab-case", () => {
    expect(() => combineAreas([{ title: "A", table: { Bad_Code: NOTE } }])).toThrow(
      /not kebab-case/,
    );
  });

  it("raises a refusal by code: its class, exit code, message, fix and code", () => {
    const error = refusal("history-not-found", { path: "runs.jsonl" });
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({
      code: "history-not-found",
      exitCode: 2,
      message: "the history file runs.jsonl does not exist",
    });
    expect(error.fix).toMatch(/--history/);
    const usage = refusal("check-needs-base", undefined);
    expect(usage).toBeInstanceOf(UsageError);
    expect(usage.code).toBe("check-needs-base");
  });

  it("says what a file that could not be written is, where its path does not", () => {
    const ledger = refusal("write-failed", {
      what: "the ledger",
      path: "freeze-ledger.json",
      why: "EACCES",
      nothingWritten: false,
    });
    expect(ledger.message).toBe("cannot write the ledger freeze-ledger.json: EACCES");
    const report = refusal("write-failed", { path: "r.json", why: "EACCES", nothingWritten: true });
    expect(report.message).toBe("cannot write r.json: EACCES; no report file was written");
  });

  it("keeps its class, code and fix when said in other words", () => {
    const error = refusal("history-not-found", { path: "/repo/runs.jsonl" });
    const shown = reworded(error, error.message.replace("/repo/", ""));
    expect(shown).toBeInstanceOf(InputError);
    expect(shown).toMatchObject({
      code: "history-not-found",
      fix: error.fix,
      message: "the history file runs.jsonl does not exist",
    });
    expect(shown.cause).toBe(error);
  });

  it("keeps the cause", () => {
    const cause = new Error("EACCES");
    const error = refusal(
      "write-failed",
      { path: "r.json", why: "EACCES", nothingWritten: false },
      { cause },
    );
    expect(error.cause).toBe(cause);
  });
});
