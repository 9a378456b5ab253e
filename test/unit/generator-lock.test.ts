// The generator lock as pure functions: the fingerprint is deterministic and sensitive to
// every byte and path, the lock file is parsed strictly (a hand-edited fingerprint is
// refused), configured paths that name nothing are errors, and lock-moved fires exactly when
// the files and the lock disagree.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import {
  buildLock,
  checkLock,
  hashBytes,
  parseLock,
  resolveLockPaths,
  serializeLock,
} from "../../src/core/generator-lock.js";

const enc = (s: string) => Buffer.from(s, "utf8");
const STRATEGIES = "tests/properties/strategies.py";
const CONFTEST = "tests/properties/conftest.py";
const GOLDEN = "fixtures/ledger_golden.json";

function files(over: Record<string, string> = {}): Map<string, Buffer> {
  const base: Record<string, string> = {
    [STRATEGIES]: "amounts = st.lists(st.integers(), max_size=64)\n",
    [CONFTEST]: "import pytest\n",
    [GOLDEN]: '{"balance": 0}\n',
    ...over,
  };
  return new Map(Object.entries(base).map(([k, v]) => [k, enc(v)]));
}

describe("buildLock", () => {
  it("hashes each file and fingerprints the sorted (path, hash) list", () => {
    const lock = buildLock(files());
    expect(Object.keys(lock.files)).toEqual([GOLDEN, CONFTEST, STRATEGIES]);
    expect(lock.files[CONFTEST]).toBe(
      `sha256:${createHash("sha256").update("import pytest\n").digest("hex")}`,
    );
    // The documented recipe, recomputed independently.
    const h = createHash("sha256");
    for (const p of [GOLDEN, CONFTEST, STRATEGIES]) h.update(`${p}\0${lock.files[p]}\n`);
    expect(lock.fingerprint).toBe(`sha256:${h.digest("hex")}`);
  });

  it("does not depend on the order the files are given in", () => {
    const reversed = new Map([...files()].reverse());
    expect(buildLock(reversed)).toEqual(buildLock(files()));
  });

  it("moves when one byte of a file changes (a narrowed generator)", () => {
    const narrowed = files({ [STRATEGIES]: "amounts = st.lists(st.integers(), max_size=4)\n" });
    expect(buildLock(narrowed).fingerprint).not.toBe(buildLock(files()).fingerprint);
  });

  it("moves when a file is renamed with the same content", () => {
    const moved = files();
    moved.set("tests/properties/strategies2.py", moved.get(STRATEGIES) as Buffer);
    moved.delete(STRATEGIES);
    expect(buildLock(moved).fingerprint).not.toBe(buildLock(files()).fingerprint);
  });

  it("holds across line endings: CRLF reads as LF in text, never in a binary file", () => {
    // A lock written in a core.autocrlf checkout failed on Linux CI, and back.
    const crlf = files({ [STRATEGIES]: "amounts = st.lists(st.integers())\r\n\r\nx = 1\r\n" });
    const lf = files({ [STRATEGIES]: "amounts = st.lists(st.integers())\n\nx = 1\n" });
    expect(buildLock(crlf)).toEqual(buildLock(lf));
    // A lone CR is no line end, and a real edit still moves the lock.
    expect(hashBytes(enc("a\rb\n"))).not.toBe(hashBytes(enc("a\nb\n")));
    expect(hashBytes(enc("a\r\nb"))).toBe(hashBytes(enc("a\nb")));
    expect(hashBytes(enc("a\r\nc"))).not.toBe(hashBytes(enc("a\nb")));
    // Bytes with a NUL are binary: hashed as they are.
    const binary = Buffer.from([0, 13, 10, 65]);
    expect(hashBytes(binary)).toBe(`sha256:${createHash("sha256").update(binary).digest("hex")}`);
  });

  it("refuses to fingerprint nothing", () => {
    expect(() => buildLock(new Map())).toThrow(InputError);
  });
});

describe("serializeLock / parseLock", () => {
  it("round-trips with a stable, documented layout", () => {
    const lock = buildLock(files());
    const text = serializeLock(lock);
    expect(text.endsWith("}\n")).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(["version", "fingerprint", "files"]);
    expect(parseLock(JSON.parse(text), "property-lock.json")).toEqual(lock);
    expect(serializeLock(parseLock(JSON.parse(text), "x"))).toBe(text);
  });

  it("refuses a lock whose fingerprint does not match its own file hashes", () => {
    const lock = buildLock(files());
    const edited = { ...lock, files: { ...lock.files, [STRATEGIES]: hashBytes(enc("other")) } };
    expect(() => parseLock(edited, "property-lock.json")).toThrow(
      /does not match its own file hashes/,
    );
  });

  it.each([
    ["not an object", "x", /not a JSON object/],
    ["a wrong version", { version: 2, fingerprint: "sha256:00", files: {} }, /reads version 1/],
    ["an unknown key", { version: 1, fingerprint: "x", files: {}, note: 1 }, /unknown key "note"/],
    [
      "a bad fingerprint",
      { version: 1, fingerprint: "md5:abc", files: {} },
      /no valid "fingerprint"/,
    ],
    [
      "no files",
      { version: 1, fingerprint: `sha256:${"0".repeat(64)}`, files: {} },
      /lists no files/,
    ],
    [
      "a bad file hash",
      { version: 1, fingerprint: `sha256:${"0".repeat(64)}`, files: { a: "sha1:00" } },
      /bad hash for "a"/,
    ],
  ])("refuses %s", (_name, value, pattern) => {
    expect(() => parseLock(value, "property-lock.json")).toThrow(pattern);
  });
});

describe("resolveLockPaths", () => {
  const repo = [
    CONFTEST,
    STRATEGIES,
    "tests/properties/test_ledger.py",
    GOLDEN,
    "fixtures/other.json",
    "src/app/ledger.py",
  ];

  it("takes literal paths and expands globs, sorted and without duplicates", () => {
    expect(resolveLockPaths([STRATEGIES, "fixtures/*.json", `./${STRATEGIES}`], repo)).toEqual([
      "fixtures/ledger_golden.json",
      "fixtures/other.json",
      STRATEGIES,
    ]);
    expect(resolveLockPaths(["tests/properties/**"], repo)).toEqual([
      CONFTEST,
      STRATEGIES,
      "tests/properties/test_ledger.py",
    ]);
  });

  it("a configured path that does not exist is an error, never an empty hash", () => {
    expect(() => resolveLockPaths(["tests/properties/strategy.py"], repo)).toThrow(
      /"tests\/properties\/strategy.py" does not exist/,
    );
  });

  it("a directory is refused with the glob to use instead", () => {
    try {
      resolveLockPaths(["tests/properties"], repo);
      expect.unreachable();
    } catch (error) {
      expect((error as InputError).message).toMatch(/is a directory/);
      expect((error as InputError).fix).toContain('"tests/properties/**"');
    }
  });

  it("a glob that matches nothing is an error", () => {
    expect(() => resolveLockPaths(["gens/*.py"], repo)).toThrow(/matches no file/);
  });

  it("an empty configuration is an error", () => {
    expect(() => resolveLockPaths([], repo)).toThrow(/lists no files/);
  });
});

describe("checkLock", () => {
  const lock = buildLock(files());
  const narrowed = buildLock(
    files({ [STRATEGIES]: "amounts = st.lists(st.integers(), max_size=4)\n" }),
  );

  it("passes when the stored lock matches the files", () => {
    expect(checkLock({ lockPath: "property-lock.json", current: lock, stored: lock })).toEqual([]);
  });

  it("lock-moved when there is no lock file", () => {
    const fs = checkLock({ lockPath: "property-lock.json", current: lock, stored: null });
    expect(fs.map((f) => f.code)).toEqual(["lock-moved"]);
    expect(fs[0]?.message).toContain("there is no lock file property-lock.json");
  });

  it("lock-moved naming the file that changed when the lock is stale", () => {
    const fs = checkLock({ lockPath: "property-lock.json", current: narrowed, stored: lock });
    expect(fs).toHaveLength(1);
    expect(fs[0]).toMatchObject({ gate: "lock", code: "lock-moved", severity: "error" });
    expect(fs[0]?.message).toContain(`changed: ${STRATEGIES}`);
    expect(fs[0]?.details).toMatchObject({ changed: [STRATEGIES], added: [], removed: [] });
  });

  it("names files newly locked and no longer locked", () => {
    const fewer = files();
    fewer.delete(GOLDEN);
    fewer.set("fixtures/new.json", enc("{}"));
    const fs = checkLock({ lockPath: "p.json", current: buildLock(fewer), stored: lock });
    expect(fs[0]?.message).toContain("newly locked: fixtures/new.json");
    expect(fs[0]?.message).toContain(`no longer locked: ${GOLDEN}`);
  });

  it("with a range: a locked file changed in the patch and the lock did not move", () => {
    const fs = checkLock({
      lockPath: "property-lock.json",
      current: narrowed,
      stored: lock,
      range: { storedAtBase: lock, changedFiles: new Set([STRATEGIES, "src/app/x.py"]) },
    });
    expect(fs).toHaveLength(1);
    expect(fs[0]?.message).toBe(
      `generator file ${STRATEGIES} changed in this patch, but property-lock.json did not move with it`,
    );
  });

  it("with a range: a file whose line ends alone changed needs no lock move", () => {
    // Converting a locked file from CRLF to LF failed lock --check --base ("did
    // not move with it"), and freezegate lock said "unchanged": no way through.
    const crlf = buildLock(files({ [STRATEGIES]: "amounts = st.lists(st.integers())\r\n" }));
    const lf = buildLock(files({ [STRATEGIES]: "amounts = st.lists(st.integers())\n" }));
    expect(
      checkLock({
        lockPath: "property-lock.json",
        current: lf,
        stored: crlf,
        range: { storedAtBase: crlf, changedFiles: new Set([STRATEGIES]) },
      }),
    ).toEqual([]);
  });

  it("with a range: the lock moved with the files and matches them: pass", () => {
    expect(
      checkLock({
        lockPath: "property-lock.json",
        current: narrowed,
        stored: narrowed,
        range: {
          storedAtBase: lock,
          changedFiles: new Set([STRATEGIES, "property-lock.json"]),
        },
      }),
    ).toEqual([]);
  });

  it("with a range: the lock moved but does not match the files: still lock-moved", () => {
    const other = buildLock(files({ [CONFTEST]: "import os\n" }));
    const fs = checkLock({
      lockPath: "property-lock.json",
      current: narrowed,
      stored: other,
      range: { storedAtBase: lock, changedFiles: new Set([STRATEGIES, "property-lock.json"]) },
    });
    expect(fs.map((f) => f.code)).toEqual(["lock-moved"]);
    expect(fs[0]?.message).toContain("does not match the generator files");
  });

  it("with a range: nothing locked changed and the lock holds: pass", () => {
    expect(
      checkLock({
        lockPath: "property-lock.json",
        current: lock,
        stored: lock,
        range: { storedAtBase: lock, changedFiles: new Set(["src/app/x.py"]) },
      }),
    ).toEqual([]);
  });
});
