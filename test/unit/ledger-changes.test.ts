// The ledger-changes gate as pure functions: every kind of freeze change is recorded, property
// and policy changes too, and with approval required a freeze the patch adds or changes needs
// an approver who is neither its owner nor an author of the change.

import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/core/findings.js";
import {
  attributeFreezeChanges,
  checkLedgerChanges,
  type FreezeAuthors,
  type Identity,
  type LedgerChangeInput,
  samePerson,
} from "../../src/core/ledger-changes.js";
import {
  DEFAULT_POLICY,
  type Freeze,
  type Ledger,
  type LedgerPolicy,
  type Property,
} from "../../src/core/ledger-model.js";

function freeze(testId: string, over: Partial<Freeze> = {}): Freeze {
  return {
    test_id: testId,
    reason: "flaky",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "words",
    compensating_property: "tests/props/test_p.py::test_p",
    reused_property: false,
    ...over,
  };
}

function ledger(
  freezes: Freeze[],
  properties: Property[] = [],
  policy: Partial<LedgerPolicy> = {},
): Ledger {
  return { source: "freezegate", policy: { ...DEFAULT_POLICY, ...policy }, freezes, properties };
}

const NOBODY: FreezeAuthors = { byTestId: new Map(), anyEntry: [] };
const AGENT: Identity = { name: "Coding Agent", email: "agent@bots.example" };

function run(over: Partial<LedgerChangeInput>): Finding[] {
  return checkLedgerChanges({
    base: ledger([]),
    head: ledger([]),
    today: "2026-10-20",
    authors: NOBODY,
    ledgerPath: "freeze-ledger.json",
    ...over,
  });
}

const changeKinds = (fs: Finding[]) =>
  fs
    .filter((f) => f.code === "ledger-changed" && f.testId)
    .map((f) => [f.testId, (f.details as { change: string }).change]);

describe("ledger-changed records", () => {
  it("lists freezes added, removed, extended and re-opened, as info", () => {
    const base = ledger([
      freeze("t::extended"),
      freeze("t::removed"),
      freeze("t::expired", { opened: "2026-10-01", expires: "2026-10-15" }),
      freeze("t::reopened"),
      freeze("t::same"),
      freeze("t::edited"),
    ]);
    const head = ledger([
      freeze("t::extended", { expires: "2026-10-30" }),
      freeze("t::added"),
      freeze("t::expired", { opened: "2026-10-01", expires: "2026-10-29" }),
      freeze("t::reopened", { opened: "2026-10-19", expires: "2026-11-02" }),
      freeze("t::same"),
      freeze("t::edited", { compensating_property: "tests/props/test_q.py::test_q" }),
    ]);
    const fs = run({ base, head });
    expect(fs.every((f) => f.severity === "info" && f.gate === "ledger-changes")).toBe(true);
    expect(changeKinds(fs)).toEqual([
      ["t::added", "added"],
      ["t::edited", "changed"],
      ["t::expired", "re-opened"],
      ["t::extended", "extended"],
      ["t::removed", "removed"],
      ["t::reopened", "re-opened"],
    ]);
    const byId = new Map(fs.map((f) => [f.testId, f]));
    expect(byId.get("t::extended")?.message).toBe(
      "freeze of t::extended extended: expires 2026-10-26 -> 2026-10-30",
    );
    expect(byId.get("t::expired")?.message).toContain("re-opened");
    expect(byId.get("t::edited")?.details).toMatchObject({ fields: ["compensating_property"] });
  });

  it("an expired freeze renewed is re-opened, a live one extended (judged on today)", () => {
    const base = ledger([freeze("t::x", { expires: "2026-10-18" })]);
    const head = ledger([freeze("t::x", { expires: "2026-10-25" })]);
    expect(changeKinds(run({ base, head, today: "2026-10-18" }))).toEqual([["t::x", "extended"]]);
    expect(changeKinds(run({ base, head, today: "2026-10-19" }))).toEqual([["t::x", "re-opened"]]);
  });

  it("a new ledger: every freeze is added; a deleted ledger is recorded", () => {
    expect(changeKinds(run({ base: null, head: ledger([freeze("t::a")]) }))).toEqual([
      ["t::a", "added"],
    ]);
    const fs = run({ base: ledger([freeze("t::a")]), head: null });
    expect(fs.map((f) => (f.details as { change: string }).change)).toEqual([
      "ledger-deleted",
      "removed",
    ]);
  });

  it("records property changes: removing a witness or a property disarms the witness gate", () => {
    const prop: Property = {
      id: "prop.ledger.balance_non_negative",
      check: "tests/properties/test_ledger.py::test_balance_never_negative",
      witnessed_by: [
        "tests/test_ledger.py::test_overdraft_rejected",
        "tests/test_ledger.py::test_w",
      ],
    };
    const gone: Property = { ...prop, id: "prop.gone", witnessed_by: ["x::y"] };
    const fs = run({
      base: ledger([], [prop, gone]),
      head: ledger([], [{ ...prop, witnessed_by: ["tests/test_ledger.py::test_w"] }]),
    });
    expect(fs.map((f) => [f.propertyId, f.message])).toEqual([
      ["prop.gone", "property prop.gone removed"],
      [
        "prop.ledger.balance_non_negative",
        "property prop.ledger.balance_non_negative changed (witnesses removed: tests/test_ledger.py::test_overdraft_rejected)",
      ],
    ]);
  });

  it("records policy changes (loosening the gates is a change to review)", () => {
    const fs = run({
      base: ledger([], [], { min_distinct: 8, require_approval: true }),
      head: ledger([], [], { min_distinct: 2, require_approval: false }),
    });
    expect(fs).toHaveLength(1);
    expect(fs[0]?.message).toBe(
      "policy changed: min_distinct 8 -> 2; require_approval true -> false",
    );
  });

  it("an unchanged ledger records nothing", () => {
    const l = ledger([freeze("t::a")]);
    expect(run({ base: l, head: ledger([freeze("t::a")]) })).toEqual([]);
  });
});

describe("self-approved", () => {
  const approval = { require_approval: true };
  const selfCodes = (fs: Finding[]) =>
    fs.filter((f) => f.code === "self-approved").map((f) => [f.testId, f.message]);

  it("is not judged when no policy requires approval", () => {
    expect(selfCodes(run({ head: ledger([freeze("t::a")]) }))).toEqual([]);
  });

  it("fires for a missing approver, the owner, or the commit author; passes another person", () => {
    const head = ledger(
      [
        freeze("t::none"),
        freeze("t::owner", { approved_by: "Finley" }),
        freeze("t::author", { approved_by: "agent" }),
        freeze("t::fine", { approved_by: "reviewer@example.com" }),
      ],
      [],
      approval,
    );
    const authors: FreezeAuthors = {
      byTestId: new Map([
        ["t::author", [AGENT]],
        ["t::fine", [AGENT]],
        ["t::owner", [AGENT]],
        ["t::none", [AGENT]],
      ]),
      anyEntry: [],
    };
    const fs = run({ base: ledger([], [], approval), head, authors });
    expect(fs.filter((f) => f.code === "self-approved").every((f) => f.severity === "error")).toBe(
      true,
    );
    expect(selfCodes(fs)).toEqual([
      [
        "t::author",
        "the new freeze of t::author is approved by agent, who authored the change (Coding Agent <agent@bots.example>), and policy.require_approval is on",
      ],
      [
        "t::none",
        "the new freeze of t::none has no approved_by, and policy.require_approval is on",
      ],
      [
        "t::owner",
        "the new freeze of t::owner is approved by its own owner (Finley), and policy.require_approval is on",
      ],
    ]);
  });

  it("turning approval off in the same patch does not waive it", () => {
    const fs = run({
      base: ledger([], [], approval),
      head: ledger([freeze("t::a")], [], { require_approval: false }),
    });
    expect(selfCodes(fs).map(([id]) => id)).toEqual(["t::a"]);
  });

  it("extensions need an approver too; removals do not", () => {
    const base = ledger([freeze("t::ext"), freeze("t::gone")], [], approval);
    const head = ledger([freeze("t::ext", { expires: "2026-10-30" })], [], approval);
    const fs = run({
      base,
      head,
      authors: { byTestId: new Map([["t::ext", [AGENT]]]), anyEntry: [] },
    });
    expect(selfCodes(fs).map(([id]) => id)).toEqual(["t::ext"]);
    expect(selfCodes(fs)[0]?.[1]).toContain("the extended freeze of t::ext has no approved_by");
  });

  it("a changed, extended or re-opened freeze needs an approval given for the change", () => {
    const bob = { approved_by: "bob" };
    const base = ledger(
      [
        freeze("t::reopen", { ...bob, opened: "2026-10-01", expires: "2026-10-10" }),
        freeze("t::extend", bob),
        freeze("t::prop", bob),
        freeze("t::same", bob),
        freeze("t::respelled", bob),
        freeze("t::newapprover", bob),
      ],
      [],
      approval,
    );
    const head = ledger(
      [
        freeze("t::reopen", {
          approved_by: "Bob <bob@example.com>",
          opened: "2026-10-18",
          expires: "2026-10-31",
          compensating_property: "tests/props/test_q.py::test_q",
        }),
        freeze("t::extend", { ...bob, expires: "2026-10-30" }),
        freeze("t::prop", { ...bob, compensating_property: "tests/props/test_q.py::test_q" }),
        freeze("t::same", bob),
        freeze("t::respelled", { approved_by: "bob@example.com" }),
        freeze("t::newapprover", { approved_by: "carol", expires: "2026-10-30" }),
      ],
      [],
      approval,
    );
    const ids = ["t::reopen", "t::extend", "t::prop", "t::respelled", "t::newapprover"];
    const authors: FreezeAuthors = {
      byTestId: new Map(ids.map((id) => [id, [AGENT]])),
      anyEntry: [],
    };
    expect(selfCodes(run({ base, head, authors }))).toEqual([
      [
        "t::extend",
        "the extended freeze of t::extend keeps the approval of bob, given before its expires changed (name who approved this change in approved_by), and policy.require_approval is on",
      ],
      [
        "t::prop",
        "the changed freeze of t::prop keeps the approval of bob, given before its compensating_property changed (name who approved this change in approved_by), and policy.require_approval is on",
      ],
      [
        "t::reopen",
        "the re-opened freeze of t::reopen keeps the approval of Bob <bob@example.com>, given before its opened, expires, compensating_property changed (name who approved this change in approved_by), and policy.require_approval is on",
      ],
    ]);
    // A second entry for the same test is no way around it either.
    const dup = ledger([freeze("t::prop", bob), freeze("t::prop", { ...bob, reason: "new" })]);
    const fs = run({
      base,
      head: { ...dup, policy: head.policy },
      authors: { byTestId: new Map([["t::prop", [AGENT]]]), anyEntry: [] },
    });
    expect(selfCodes(fs)).toEqual([
      [
        "t::prop",
        "the new freeze of t::prop keeps the approval of bob, given before its reason changed (name who approved this change in approved_by), and policy.require_approval is on",
      ],
    ]);
  });

  it("a freeze pointed at other tests does not keep the approval of the entry it replaces", () => {
    // Editing an approved entry's test_id read as one removed and one added, and
    // the added one kept bob's approval of the old test.
    const base = ledger([freeze("t::old", { approved_by: "bob" })], [], approval);
    const authors: FreezeAuthors = {
      byTestId: new Map([
        ["t::*", [AGENT]],
        ["t::other", [AGENT]],
        ["t::old", [AGENT]],
      ]),
      anyEntry: [],
    };
    for (const id of ["t::*", "t::other"]) {
      const head = ledger([freeze(id, { approved_by: "bob" })], [], approval);
      expect(selfCodes(run({ base, head, authors }))).toEqual([
        [
          id,
          `the new freeze of ${id} keeps the approval of bob, given to the freeze of t::old that this patch removes (name who approved this change in approved_by, or add the freeze in a patch that removes none bob approved), and policy.require_approval is on`,
        ],
      ]);
    }
    // A reworded reason on the way is no way around it; another approver, or the
    // old entry kept, is a fresh approval.
    const reworded = ledger(
      [freeze("t::other", { approved_by: "bob", reason: "times out on the shared runner" })],
      [],
      approval,
    );
    expect(selfCodes(run({ base, head: reworded, authors }))).toEqual([
      [
        "t::other",
        "the new freeze of t::other keeps the approval of bob, given to the freeze of t::old that this patch removes (name who approved this change in approved_by, or add the freeze in a patch that removes none bob approved), and policy.require_approval is on",
      ],
    ]);
    const carol = ledger([freeze("t::other", { approved_by: "carol" })], [], approval);
    expect(selfCodes(run({ base, head: carol, authors }))).toEqual([]);
    const both = ledger(
      [freeze("t::old", { approved_by: "bob" }), freeze("t::other", { approved_by: "bob" })],
      [],
      approval,
    );
    expect(selfCodes(run({ base, head: both, authors }))).toEqual([]);
  });

  it("a freeze pointed at a test the base already froze does not keep its old approval", () => {
    // T1's entry (bob) re-pointed onto T2, whose own entry (dave) the patch
    // removed, paired with T2's entry as "extended" and passed with bob's approval of T1.
    const base = ledger(
      [
        freeze("t::one", { approved_by: "bob", expires: "2026-10-26" }),
        freeze("t::two", { approved_by: "dave", expires: "2026-10-20", reason: "slow" }),
      ],
      [],
      approval,
    );
    const head = ledger(
      [freeze("t::two", { approved_by: "bob", expires: "2026-10-26" })],
      [],
      approval,
    );
    const authors: FreezeAuthors = { byTestId: new Map(), anyEntry: [AGENT] };
    const findings = run({ base, head, authors });
    expect(selfCodes(findings)).toEqual([
      [
        "t::two",
        "the extended freeze of t::two keeps the approval of bob, given to the freeze of t::one that this patch removes (name who approved this change in approved_by, or make this change in a patch that removes none bob approved), and policy.require_approval is on",
      ],
    ]);
    // The record says what else changed beside the window.
    expect(findings.map((f) => f.message)).toContain(
      "freeze of t::two extended: expires 2026-10-20 -> 2026-10-26; also changed: reason, approved_by",
    );
    // A plain extension named with bob, while the patch unfreezes a fixed test bob approved,
    // is no re-point: only its window and approver changed.
    const extension = ledger(
      [freeze("t::two", { approved_by: "bob", expires: "2026-10-26", reason: "slow" })],
      [],
      approval,
    );
    expect(selfCodes(run({ base, head: extension, authors }))).toEqual([]);
    // Nor is one that rewords its own reason or hands it to another owner on the way
    //: no changed term holds the removed freeze's value.
    const reworded = ledger(
      [
        freeze("t::two", {
          approved_by: "bob",
          expires: "2026-10-26",
          reason: "slow; upstream fix due 10-24",
          owner: "gale",
        }),
      ],
      [],
      approval,
    );
    expect(selfCodes(run({ base, head: reworded, authors }))).toEqual([]);
    // Nor one handed to the removed freeze's owner: an owner is no term it carries.
    const handedOver = ledger(
      [freeze("t::two", { approved_by: "bob", expires: "2026-10-26", reason: "slow" })].map(
        (f) => ({ ...f, owner: "finley" }),
      ),
      [],
      approval,
    );
    const baseOtherOwner = ledger(
      [
        freeze("t::one", { approved_by: "bob", expires: "2026-10-26" }),
        freeze("t::two", {
          approved_by: "dave",
          expires: "2026-10-20",
          reason: "slow",
          owner: "gale",
        }),
      ],
      [],
      approval,
    );
    expect(selfCodes(run({ base: baseOtherOwner, head: handedOver, authors }))).toEqual([]);
    // Another approver, given to none of the removed freezes, is a fresh approval.
    const kept = ledger(
      [freeze("t::two", { approved_by: "carol", expires: "2026-10-26", reason: "slow" })],
      [],
      approval,
    );
    expect(selfCodes(run({ base, head: kept, authors }))).toEqual([]);
  });

  it("fails closed when git could not say who made the change", () => {
    const fs = run({
      base: ledger([], [], approval),
      head: ledger([freeze("t::a", { approved_by: "reviewer" })], [], approval),
    });
    expect(selfCodes(fs)[0]?.[1]).toContain("git could not say who authored the change");
  });

  it("a commit whose ledger could not be read counts as an author of every entry", () => {
    const fs = run({
      base: ledger([], [], approval),
      head: ledger([freeze("t::a", { approved_by: "agent@bots.example" })], [], approval),
      authors: { byTestId: new Map([["t::a", [{ name: "R", email: "r@x" }]]]), anyEntry: [AGENT] },
    });
    expect(selfCodes(fs)).toHaveLength(1);
  });
});

describe("samePerson", () => {
  it.each([
    ["finley", "Finley", true],
    ["finley", "finley@example.com", true],
    ["@finley", "finley", true],
    ["Finley Smith <fs@example.com>", "fs@example.com", true],
    ["octocat", "12345+octocat@users.noreply.github.com", true],
    ["reviewer", "finley", false],
    ["", "finley", false],
    ["alice@a.example", "bob@a.example", false],
  ])("%s vs %s -> %s", (a, b, same) => {
    expect(samePerson(a, b)).toBe(same);
  });
});

describe("attributeFreezeChanges", () => {
  const alice: Identity = { name: "Alice", email: "alice@x" };
  const bob: Identity = { name: "Bob", email: "bob@x" };
  const a1 = freeze("t::a");
  const a2 = freeze("t::a", { reason: "still flaky" });

  it("charges each commit with the entries whose value none of its parents had", () => {
    const authors = attributeFreezeChanges([
      {
        identities: [bob],
        ledger: ledger([a2, freeze("t::b")]),
        parents: [ledger([a1, freeze("t::b")])],
      },
      { identities: [alice], ledger: ledger([a1, freeze("t::b")]), parents: [ledger([])] },
    ]);
    expect(authors.byTestId.get("t::a")).toEqual([bob, alice]);
    expect(authors.byTestId.get("t::b")).toEqual([alice]);
    expect(authors.anyEntry).toEqual([]);
  });

  it("a merge that takes one side's entry does not author it", () => {
    const authors = attributeFreezeChanges([
      { identities: [bob], ledger: ledger([a1]), parents: [ledger([]), ledger([a1])] },
    ]);
    expect(authors.byTestId.size).toBe(0);
  });

  it("a commit whose ledger does not parse is charged with every entry", () => {
    const authors = attributeFreezeChanges([
      { identities: [alice], ledger: "unreadable", parents: [ledger([])] },
      { identities: [bob], ledger: ledger([a1]), parents: ["unreadable"] },
    ]);
    expect(authors.anyEntry).toEqual([alice]);
    expect(authors.byTestId.get("t::a")).toEqual([bob]);
  });
});
