// Which ledger the freezegate pytest plugin reads, from pytest's configuration as pytest
// chooses it (src/runners/pytest/pytest-config.ts, src/adapters/pytest-ledger.ts), and the applied
// record's comparison with the ledger a command judges.

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type LedgerAgreement,
  pluginLedger,
  refuseForeignAppliedRecord,
  refuseForeignPluginLedger,
} from "../../src/adapters/pytest-ledger.js";
import { FreezegateError, formatError } from "../../src/core/errors.js";
import { IniSyntaxError, parseIni } from "../../src/core/ini.js";
import type { Ledger } from "../../src/core/ledger-model.js";
import { shlexSplit } from "../../src/core/shlex.js";
import {
  covConfigSetting,
  ledgerSetting,
  locatePytestConfig,
  PytestConfigFileUnreadable,
  PytestConfigUnreadable,
  pytestConfigOf,
  pytestCovConfig,
  pytestRootdir,
  pythonFilesSetting,
} from "../../src/runners/pytest/pytest-config.js";

describe("parseIni (iniconfig's rules)", () => {
  it("reads sections, key = value and key: value, continuation lines and comment lines", () => {
    const ini = parseIni(
      "[pytest]\n# a comment\naddopts = -p freezegate_pytest\n  --freezegate-ledger=x.json\n ; indented comment\nfreezegate_ledger: ci/l.json\n",
    );
    expect(Object.fromEntries(ini.get("pytest") ?? [])).toEqual({
      addopts: "-p freezegate_pytest\n--freezegate-ledger=x.json",
      freezegate_ledger: "ci/l.json",
    });
  });

  it("keeps an inline comment in the value, as pytest 7 does", () => {
    expect(
      parseIni("[pytest]\nfreezegate_ledger = a.json # b\n")
        .get("pytest")
        ?.get("freezegate_ledger"),
    ).toBe("a.json # b");
  });

  it("refuses what iniconfig refuses: a duplicate name, a value before any section", () => {
    expect(() => parseIni("[pytest]\na = 1\na = 2\n")).toThrow(IniSyntaxError);
    expect(() => parseIni("a = 1\n")).toThrow("no section header defined");
  });
});

describe("pytestConfigOf: the file pytest takes its settings from", () => {
  it("pytest.ini always, even without a [pytest] section", () => {
    expect(pytestConfigOf("pytest.ini", "", 7)).toEqual({ section: "pytest.ini", values: {} });
  });

  it("tox.ini only with [pytest], setup.cfg only with [tool:pytest] (and never [pytest])", () => {
    expect(pytestConfigOf("tox.ini", "[tox]\nenvlist = py3\n", 7)).toBeNull();
    expect(pytestConfigOf("tox.ini", "[pytest]\nfreezegate_ledger = a.json\n", 7)).toEqual({
      section: "tox.ini [pytest]",
      values: { freezegate_ledger: "a.json" },
    });
    // pytest stops on a setup.cfg with [pytest] (init refuses it too): nothing is read from it.
    expect(() => pytestConfigOf("setup.cfg", "[pytest]\nfreezegate_ledger = a.json\n", 7)).toThrow(
      PytestConfigUnreadable,
    );
    expect(pytestConfigOf("setup.cfg", "[flake8]\nmax-line-length = 99\n", 7)).toBeNull();
    expect(pytestConfigOf("setup.cfg", "[tool:pytest]\nfreezegate_ledger = b.json\n", 7)).toEqual({
      section: "setup.cfg [tool:pytest]",
      values: { freezegate_ledger: "b.json" },
    });
  });

  it("pyproject.toml with [tool.pytest.ini_options]; pytest 9's native [tool.pytest] too", () => {
    expect(
      pytestConfigOf("pyproject.toml", '[tool.freezegate]\nledger = "a.json"\n', 7),
    ).toBeNull();
    expect(
      pytestConfigOf("pyproject.toml", '[tool.pytest.ini_options]\naddopts = ["-p", "x"]\n', 7),
    ).toEqual({
      section: "pyproject.toml [tool.pytest.ini_options]",
      values: { addopts: ["-p", "x"] },
    });
    const native = '[tool.pytest]\nfreezegate_ledger = "n.json"\n';
    expect(pytestConfigOf("pyproject.toml", native, 7)).toBeNull();
    expect(pytestConfigOf("pyproject.toml", native, 9)?.values).toEqual({
      freezegate_ledger: "n.json",
    });
  });
});

describe("locatePytestConfig and pytestRootdir: pytest's rootdir choice", () => {
  const files: Record<string, string> = {
    "a/b/tox.ini": "[tox]\nenvlist = py3\n",
    "a/b/pyproject.toml": '[project]\nname = "x"\n',
    "a/setup.cfg": "[tool:pytest]\naddopts = -q\n",
    "setup.py": "",
  };
  const read = (dir: string, name: string) => files[`${dir}/${name}`.replace(/^\//, "")] ?? null;
  const isFile = (dir: string, name: string) => read(dir, name) !== null;

  it("the first directory upwards with a file that holds pytest settings", () => {
    const located = locatePytestConfig(["a/b", "a", ""], 7, read);
    expect(located).toMatchObject({ dir: "a", name: "setup.cfg", values: { addopts: "-q" } });
    expect(pytestRootdir(["a/b", "a", ""], 9, located, isFile)).toBe("a");
  });

  it("without one: pytest 9 the first pyproject.toml's directory, both then a setup.py's", () => {
    expect(locatePytestConfig(["a/b", ""], 7, read)).toBeNull();
    expect(pytestRootdir(["a/b", ""], 9, null, isFile)).toBe("a/b");
    expect(pytestRootdir(["a/b", ""], 7, null, isFile)).toBe("");
    expect(pytestRootdir(["a/b"], 7, null, () => false)).toBe("a/b");
  });

  it("names the file pytest stops on", () => {
    const broken = { "x/pytest.ini": "[pytest]\na = 1\na = 2\n" } as Record<string, string>;
    const error = (() => {
      try {
        locatePytestConfig(["x"], 7, (dir, name) => broken[`${dir}/${name}`] ?? null);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(PytestConfigFileUnreadable);
    expect((error as PytestConfigFileUnreadable).file.name).toBe("pytest.ini");
  });
});

describe("pytestCovConfig: the --cov-config pytest's own configuration gives pytest-cov", () => {
  const cov = (files: Record<string, string>) => pytestCovConfig((name) => files[name] ?? null);

  it("from the addopts of the file pytest reads, the last one, in every spelling", () => {
    expect(cov({ "pytest.ini": "[pytest]\naddopts = --cov-config=a.rc --cov-config b.rc\n" })).toBe(
      "b.rc",
    );
    expect(
      cov({
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = ["--cov-config", "ci/c.ini"]\n',
      }),
    ).toBe("ci/c.ini");
    expect(cov({ "pytest.ini": "[pytest]\n# addopts = --cov-config=old.rc\naddopts = -q\n" })).toBe(
      undefined,
    );
  });

  it("not from a file pytest does not read, nor from text that is no pytest setting", () => {
    expect(
      cov({
        "pytest.ini": "[pytest]\naddopts = -q\n",
        "setup.cfg": "[tool:pytest]\naddopts = --cov-config=ci.rc\n",
      }),
    ).toBe(undefined);
    expect(cov({ "tox.ini": "[testenv]\ncommands = pytest --cov-config=tox.rc\n" })).toBe(
      undefined,
    );
  });

  it("cannot tell (null) for a file it cannot read, or pytest 7 and 9 reading different ones", () => {
    expect(cov({ "pytest.ini": "[pytest]\naddopts = --cov-config='x\n" })).toBeNull();
    expect(
      cov({
        "pytest.toml": '[pytest]\naddopts = ["--cov-config=nine.rc"]\n',
        "pytest.ini": "[pytest]\naddopts = --cov-config=seven.rc\n",
      }),
    ).toBeNull();
  });
});

describe("addopts read once, by pytest's argument parser's rules", () => {
  it("an option without its value, or an override without '=', stops pytest: unreadable", () => {
    expect(() => pythonFilesSetting({ addopts: "-o -q" })).toThrow(PytestConfigUnreadable);
    expect(() => ledgerSetting({ addopts: "-o freezegate_ledger" })).toThrow(
      PytestConfigUnreadable,
    );
    expect(() => covConfigSetting({ addopts: "--cov-config --cov" })).toThrow(
      PytestConfigUnreadable,
    );
  });

  it("an override's value may hold '=', and the last one wins", () => {
    expect(
      pythonFilesSetting({ addopts: "-o python_files=a.py --override-ini=python_files=b=c.py" }),
    ).toEqual(["b=c.py"]);
  });
});

describe("shlexSplit (Python's shlex.split)", () => {
  it("splits on whitespace and honours quotes and backslashes", () => {
    expect(shlexSplit(` -p x --freezegate-ledger="a b.json" 'c\\d' e\\ f "g\\"h" ''`)).toEqual([
      "-p",
      "x",
      "--freezegate-ledger=a b.json",
      "c\\d",
      "e f",
      'g"h',
      "",
    ]);
    expect(() => shlexSplit('-o "x')).toThrow("no closing quotation");
  });
});

describe("ledgerSetting: the plugin's own ranking", () => {
  it("no setting: null (the rootdir default)", () => {
    expect(ledgerSetting({ addopts: "-p freezegate_pytest" })).toBeNull();
    expect(ledgerSetting({ freezegate_ledger: "  " })).toBeNull();
  });

  it("the ini value, relative to the ini file", () => {
    expect(ledgerSetting({ freezegate_ledger: " ci/l.json " })).toEqual({
      value: "ci/l.json",
      base: "ini",
      given: "freezegate_ledger",
    });
  });

  it("--freezegate-ledger in addopts, both spellings, the last one wins over the ini value", () => {
    const flag = { base: "invocation", given: "addopts --freezegate-ledger" };
    expect(
      ledgerSetting({ addopts: "--freezegate-ledger a.json", freezegate_ledger: "i.json" }),
    ).toEqual({ value: "a.json", ...flag });
    expect(
      ledgerSetting({ addopts: ["--freezegate-ledger=a.json", "--freezegate-ledger=b.json"] }),
    ).toEqual({
      value: "b.json",
      ...flag,
    });
    // An empty flag counts as none (the plugin's `if flag:`).
    expect(
      ledgerSetting({ addopts: "--freezegate-ledger=", freezegate_ledger: "i.json" })?.value,
    ).toBe("i.json");
  });

  it("-o / --override-ini freezegate_ledger=... replaces the file's value", () => {
    for (const addopts of [
      "-o freezegate_ledger=o.json",
      "-ofreezegate_ledger=o.json",
      "--override-ini=freezegate_ledger=o.json",
      "--override-ini freezegate_ledger=o.json",
    ]) {
      expect(ledgerSetting({ addopts, freezegate_ledger: "i.json" }), addopts).toEqual({
        value: "o.json",
        base: "ini",
        given: "addopts -o freezegate_ledger",
      });
    }
    expect(
      ledgerSetting({ addopts: "-o freezegate_ledger=", freezegate_ledger: "i.json" }),
    ).toBeNull();
  });

  it("refuses what it cannot read", () => {
    expect(() => ledgerSetting({ addopts: "--freezegate-ledger" })).toThrow(PytestConfigUnreadable);
    expect(() => ledgerSetting({ freezegate_ledger: ["a.json"] })).toThrow("not text");
  });
});

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-pytest-ledger-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function refusal(run: () => void): string {
  try {
    run();
  } catch (error) {
    if (error instanceof FreezegateError) return formatError(error);
    throw error;
  }
  return "no refusal";
}

describe("pluginLedger: pytest's choice of config file and rootdir", () => {
  it("pytest.ini before pyproject.toml, tox.ini and setup.cfg in the same directory", () => {
    write("pytest.ini", "[pytest]\nfreezegate_ledger = a.json\n");
    write("pyproject.toml", '[tool.pytest.ini_options]\nfreezegate_ledger = "b.json"\n');
    write("tox.ini", "[pytest]\nfreezegate_ledger = c.json\n");
    expect(pluginLedger(root, root, 7)).toEqual({
      path: join(root, "a.json"),
      given: "pytest.ini [pytest] freezegate_ledger",
      explicit: true,
    });
  });

  it("a pyproject.toml without a pytest table is passed over for tox.ini, then setup.cfg", () => {
    write("pyproject.toml", '[tool.freezegate]\nledger = "x.json"\n');
    write("setup.cfg", "[tool:pytest]\nfreezegate_ledger = s.json\n");
    expect(pluginLedger(root, root, 7)?.given).toBe("setup.cfg [tool:pytest] freezegate_ledger");
    write("tox.ini", "[pytest]\naddopts = --freezegate-ledger=t.json\n");
    expect(pluginLedger(root, root, 7)).toEqual({
      path: join(root, "t.json"),
      given: "tox.ini [pytest] addopts --freezegate-ledger",
      explicit: true,
    });
  });

  it("from a test root: the ini value is relative to the ini file, a flag to the test root", () => {
    write("pytest.ini", "[pytest]\nfreezegate_ledger = ci/l.json\n");
    mkdirSync(join(root, "backend"));
    expect(pluginLedger(root, join(root, "backend"), 7)?.path).toBe(join(root, "ci/l.json"));
    write("pytest.ini", "[pytest]\naddopts = --freezegate-ledger ci/l.json\n");
    expect(pluginLedger(root, join(root, "backend"), 7)?.path).toBe(
      join(root, "backend/ci/l.json"),
    );
  });

  it("no setting: freeze-ledger.json in the rootdir (the config's directory, else the test root)", () => {
    mkdirSync(join(root, "backend"));
    expect(pluginLedger(root, join(root, "backend"), 7)).toEqual({
      path: join(root, "backend/freeze-ledger.json"),
      given: "freeze-ledger.json in pytest's rootdir, backend",
      explicit: false,
    });
    write("setup.py", "");
    expect(pluginLedger(root, join(root, "backend"), 7)?.path).toBe(
      join(root, "freeze-ledger.json"),
    );
    write("backend/tox.ini", "[pytest]\ntestpaths = tests\n");
    expect(pluginLedger(root, join(root, "backend"), 7)?.path).toBe(
      join(root, "backend/freeze-ledger.json"),
    );
  });

  it("a config pytest cannot parse: no ledger (pytest runs nothing), unless it names the plugin", () => {
    write("pytest.ini", "[pytest]\na = 1\na = 2\n");
    expect(pluginLedger(root, root, 7)).toBeNull();
    write("pytest.ini", "[pytest]\nfreezegate_ledger = a\nfreezegate_ledger = b\n");
    expect(refusal(() => pluginLedger(root, root, 7))).toBe(
      "cannot tell which ledger the freezegate pytest plugin reads: pytest.ini cannot be read here (line 3: duplicate name freezegate_ledger) (fix: fix pytest.ini, or set the plugin's ledger plainly (freezegate_ledger = PATH))",
    );
  });
});

describe("refuseForeignPluginLedger", () => {
  const agreement = (ledgerPath: string, testRoot = ""): LedgerAgreement => ({
    root,
    testRoot,
    ledgerPath: join(root, ledgerPath),
    judge: "check",
    ledgerKey: 'the "ledger" key of [tool.freezegate] (or --ledger)',
  });

  it("refuses a setting that names another file, naming both and the fix", () => {
    write("pytest.ini", "[pytest]\nfreezegate_ledger = ci/pytest-ledger.json\n");
    expect(refusal(() => refuseForeignPluginLedger(agreement("freeze-ledger.json")))).toBe(
      `the freezegate pytest plugin applies the ledger ci/pytest-ledger.json (pytest.ini [pytest] freezegate_ledger), but check judges freeze-ledger.json: a freeze only pytest applies would mute a test the gate counts as live (fix: point both at one ledger: the "ledger" key of [tool.freezegate] (or --ledger), and pytest's freezegate_ledger)`,
    );
  });

  it("accepts the same file, also through a symbolic link", () => {
    write("freeze-ledger.json", "{}");
    write("pytest.ini", "[pytest]\nfreezegate_ledger = freeze-ledger.json\n");
    expect(refusal(() => refuseForeignPluginLedger(agreement("freeze-ledger.json")))).toBe(
      "no refusal",
    );
    symlinkSync(join(root, "freeze-ledger.json"), join(root, "link.json"));
    expect(refusal(() => refuseForeignPluginLedger(agreement("link.json")))).toBe("no refusal");
  });

  it("a rootdir default counts only when the file exists", () => {
    write("ledgers/main.json", "{}");
    mkdirSync(join(root, "backend"));
    expect(
      refusal(() => refuseForeignPluginLedger(agreement("ledgers/main.json", "backend"))),
    ).toBe("no refusal");
    write("backend/freeze-ledger.json", "{}");
    expect(
      refusal(() => refuseForeignPluginLedger(agreement("ledgers/main.json", "backend"))),
    ).toBe(
      `the freezegate pytest plugin applies the ledger backend/freeze-ledger.json (freeze-ledger.json in pytest's rootdir, backend), but check judges ledgers/main.json: a freeze only pytest applies would mute a test the gate counts as live (fix: point both at one ledger: the "ledger" key of [tool.freezegate] (or --ledger), and pytest's freezegate_ledger)`,
    );
  });

  it("a pytest.toml only pytest 9 reads is judged too", () => {
    write("freeze-ledger.json", "{}");
    write("pytest.ini", "[pytest]\nfreezegate_ledger = freeze-ledger.json\n");
    write("pytest.toml", '[pytest]\nfreezegate_ledger = "other.json"\n');
    expect(refusal(() => refuseForeignPluginLedger(agreement("freeze-ledger.json")))).toContain(
      "applies the ledger other.json (pytest.toml [pytest] freezegate_ledger)",
    );
  });
});

describe("refuseForeignAppliedRecord", () => {
  const HEAD = "a".repeat(40);
  const ID = "tests/test_a.py::test_x";
  const ledgerText = '{"version": 1}\n';
  const sha = createHash("sha256").update(ledgerText).digest("hex");
  const ledger = { freezes: [{ test_id: ID }] } as unknown as Ledger;

  function record(over: Record<string, unknown>): void {
    write(
      ".freezegate/applied.json",
      JSON.stringify({
        version: 1,
        tool: "pytest-freezegate",
        commit: HEAD,
        ledger: { path: "freeze-ledger.json", sha256: sha },
        mode: "run",
        applied: [ID],
        expired: [],
        outcomes: {},
        ...over,
      }),
    );
  }
  const judge = () =>
    refusal(() =>
      refuseForeignAppliedRecord({
        root,
        testRoot: "",
        ledgerPath: join(root, "freeze-ledger.json"),
        judge: "check",
        ledgerKey: "--ledger",
        recordPath: join(root, ".freezegate/applied.json"),
        headCommit: HEAD,
        ledger,
      }),
    );

  beforeEach(() => write("freeze-ledger.json", ledgerText));

  it("no record, a matching one, or one from another commit: nothing to refuse", () => {
    expect(judge()).toBe("no refusal");
    record({});
    expect(judge()).toBe("no refusal");
    record({ commit: "b".repeat(40), ledger: { path: "x.json", sha256: sha } });
    expect(judge()).toBe("no refusal");
  });

  it("refuses another ledger file, other bytes, or a test the judged ledger does not freeze", () => {
    record({ ledger: { path: "ci/x.json", sha256: sha } });
    expect(judge()).toBe(
      "the tests ran with the ledger ci/x.json (the freezegate pytest plugin's applied record .freezegate/applied.json), but check judges freeze-ledger.json: a freeze only pytest applied muted a test the gate counts as live (fix: point both at one ledger: --ledger, and pytest's freezegate_ledger; then run the tests again)",
    );
    record({ ledger: { path: "freeze-ledger.json", sha256: "0".repeat(64) } });
    expect(judge()).toBe(
      `the tests ran with another version of freeze-ledger.json than check judges (the applied record .freezegate/applied.json says sha256 000000000000, the file is ${sha.slice(0, 12)}) (fix: run the tests again on this ledger, and do not change it between the tests and the gate)`,
    );
    record({ applied: [ID, "tests/test_a.py::test_y"] });
    expect(judge()).toBe(
      "the tests froze 1 test(s) that freeze-ledger.json does not freeze, e.g. tests/test_a.py::test_y (the applied record .freezegate/applied.json) (fix: point both at one ledger: --ledger, and pytest's freezegate_ledger; then run the tests again)",
    );
  });

  it("refuses a record it cannot read", () => {
    record({ version: 2 });
    expect(judge()).toContain("applied record .freezegate/applied.json: $.version is 2");
  });
});
