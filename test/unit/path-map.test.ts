import { describe, expect, it } from "vitest";
import {
  findAmbiguousRun,
  findLostRecording,
  findMappedAway,
  mapDataPath,
  mapDataPaths,
  normalizePath,
  parsePathRule,
  recordedRoot,
  refuseMappedAway,
  unmappedPathsFix,
} from "../../src/core/path-map.js";

describe("unmappedPathsFix", () => {
  it("names a =DIR/ rule for relative paths (relative_files is already on)", () => {
    expect(unmappedPathsFix(["pkg/calc.py", "tests/test_calc.py"])).toBe(
      "the data's paths are relative to the directory coverage ran in: give it with --path-map =DIR/ (e.g. --path-map =backend/)",
    );
  });

  it("names the installed copy for site-packages paths, which relative_files cannot help", () => {
    expect(
      unmappedPathsFix(["/ci/venv/lib/python3.11/site-packages/pkg/calc.py", "/ci/app/other.py"]),
    ).toBe(
      "the tests ran an installed copy of the code: run them against the checkout (pip install -e .), or map the copy with --path-map /ci/venv/lib/python3.11/site-packages/=DIR/ (the directory that holds the package, e.g. src/)",
    );
    expect(unmappedPathsFix(["C:\\py\\Lib\\site-packages\\pkg\\calc.py"])).toContain(
      "--path-map C:\\py\\Lib\\site-packages\\=DIR/",
    );
  });

  it("names a prefix rule or relative_files for another machine's root", () => {
    expect(unmappedPathsFix(["/app/pkg/calc.py"])).toBe(
      "map the recorded prefix with --path-map FROM=TO (e.g. --path-map /app/=.), or record with relative_files = true",
    );
  });

  it("names the exact rule when the root a file was recorded under is known", () => {
    const measured = ["/ci/build 7/pkg/calc.py"];
    expect(
      unmappedPathsFix(
        measured,
        recordedRoot(measured, (p) => p === "pkg/calc.py"),
      ),
    ).toBe(
      'the data records pkg/calc.py as "/ci/build 7/pkg/calc.py": map that root onto the repository with --path-map "/ci/build 7/=.", or record with relative_files = true',
    );
  });
});

describe("recordedRoot", () => {
  const files = new Set(["pkg/calc.py", "calc.py", "src/pkg/__init__.py"]);
  const isFile = (p: string) => files.has(p);

  it("cuts the shortest prefix that leaves a repository file (the longest tail)", () => {
    expect(recordedRoot(["/ci/app/pkg/calc.py"], isFile)).toEqual({
      prefix: "/ci/app/",
      repoPath: "pkg/calc.py",
    });
    expect(recordedRoot(["/calc.py"], isFile)).toEqual({ prefix: "/", repoPath: "calc.py" });
  });

  it("looks past paths that fit nowhere, and skips relative, Windows and odd paths", () => {
    expect(
      recordedRoot(
        ["pkg/calc.py", "C:\\ci\\pkg\\calc.py", "/ci/x.py", "/ci/src/pkg/__init__.py"],
        isFile,
      ),
    ).toEqual({ prefix: "/ci/", repoPath: "src/pkg/__init__.py" });
    expect(recordedRoot(["/ci/../pkg/calc.py"], isFile)).toEqual({
      prefix: "/ci/../",
      repoPath: "pkg/calc.py",
    });
    expect(recordedRoot(["/ci//pkg/calc.py"], isFile)).toEqual({
      prefix: "/ci//",
      repoPath: "pkg/calc.py",
    });
    expect(recordedRoot(["/ci/x.py"], isFile)).toBeNull();
    expect(recordedRoot([], isFile)).toBeNull();
  });

  it("takes the root that fits the most paths, not the first file of the same name", () => {
    // A root-level m.py would make /ci/build/tools/ the root of one path; app/ fits two.
    const here = new Set(["m.py", "app/a.py", "app/b.py"]);
    expect(
      recordedRoot(["/ci/build/tools/m.py", "/ci/build/app/a.py", "/ci/build/app/b.py"], (p) =>
        here.has(p),
      ),
    ).toEqual({ prefix: "/ci/build/", repoPath: "app/a.py" });
  });

  it("asks about at most `limit` paths", () => {
    const asked: string[] = [];
    recordedRoot(
      ["/a/x.py", "/b/y.py", "/c/z.py"],
      (p) => {
        asked.push(p);
        return false;
      },
      2,
    );
    expect(asked).toEqual(["a/x.py", "x.py", "b/y.py", "y.py"]);
  });
});

describe("mapDataPath", () => {
  const roots = ["/work/repo", "/private/work/repo"];

  it("maps absolute paths under the root and relative paths as they are", () => {
    expect(mapDataPath("/work/repo/src/a.py", roots, [])).toBe("src/a.py");
    expect(mapDataPath("/private/work/repo/src/a.py", roots, [])).toBe("src/a.py");
    expect(mapDataPath("src/a.py", roots, [])).toBe("src/a.py");
    expect(mapDataPath("./src/../src/a.py", roots, [])).toBe("src/a.py");
  });

  it("leaves paths outside the repository unmapped", () => {
    expect(mapDataPath("/usr/lib/python3/x.py", roots, [])).toBeNull();
    expect(mapDataPath("/work/repository/x.py", roots, [])).toBeNull();
    expect(mapDataPath("../elsewhere/x.py", roots, [])).toBeNull();
  });

  it("applies --path-map rules on whole segments, first match wins", () => {
    const rules = [parsePathRule("/app/=."), parsePathRule("/app2=/work/repo/lib")];
    expect(mapDataPath("/app/src/a.py", roots, rules)).toBe("src/a.py");
    expect(mapDataPath("/app2/b.py", roots, rules)).toBe("lib/b.py");
    expect(mapDataPath("/application/a.py", roots, [parsePathRule("/app=.")])).toBeNull();
    expect(mapDataPath("C:\\build\\src\\a.py", roots, [parsePathRule("C:\\build\\=")])).toBe(
      "src/a.py",
    );
  });

  it("an empty FROM prefixes relative paths only", () => {
    const rules = [parsePathRule("=backend/")];
    expect(mapDataPath("src/a.py", roots, rules)).toBe("backend/src/a.py");
    expect(mapDataPath("/work/repo/src/a.py", roots, rules)).toBe("src/a.py");
  });

  it("refuses a rule without =", () => {
    expect(() => parsePathRule("/app")).toThrow(/has no "="/);
  });

  it("normalizes", () => {
    expect(normalizePath("/a/./b/../c/")).toBe("/a/c");
    expect(normalizePath("C:\\a\\b")).toBe("C:/a/b");
  });

  it("keeps a backslash in a POSIX file name; turns only Windows paths' into separators", () => {
    expect(mapDataPath("/work/repo/app/back\\slash.py", roots, [])).toBe("app/back\\slash.py");
    expect(mapDataPath("app/back\\slash.py", roots, [])).toBe("app/back\\slash.py");
    expect(normalizePath("a/b\\c")).toBe("a/b\\c");
    expect(mapDataPath("\\\\host\\share\\a.py", roots, [parsePathRule("\\\\host\\share\\=")])).toBe(
      "a.py",
    );
  });

  it("a Windows absolute path no rule maps lies outside (never a relative path 'D:/...')", () => {
    expect(mapDataPath("D:\\a\\repo\\src\\m.py", roots, [])).toBeNull();
    expect(mapDataPath("D:\\a\\repo\\src\\m.py", ["C:\\w", "D:\\a\\repo"], [])).toBe("src/m.py");
    // One drive, whatever the case of its letter.
    expect(mapDataPath("C:\\b\\src\\a.py", roots, [parsePathRule("c:\\b\\=")])).toBe("src/a.py");
  });

  it("a relative path with only backslashes could be either spelling: both are mapped", () => {
    const { toData, shared } = mapDataPaths(["src\\a.py"], roots, []);
    expect([...toData]).toEqual([
      ["src\\a.py", "src\\a.py"],
      ["src/a.py", "src\\a.py"],
    ]);
    expect(shared.size).toBe(0);
  });

  it("records every data path that maps onto one repository file", () => {
    const { toData, shared, outside } = mapDataPaths(
      ["/work/repo/src/a.py", "/ci/src/a.py", "/private/work/repo/src/a.py", "/usr/x.py"],
      roots,
      [parsePathRule("/ci/=.")],
    );
    expect(toData.get("src/a.py")).toBe("/work/repo/src/a.py");
    expect(shared.get("src/a.py")).toEqual([
      "/work/repo/src/a.py",
      "/ci/src/a.py",
      "/private/work/repo/src/a.py",
    ]);
    expect(outside).toEqual(["/usr/x.py"]);
  });
});

describe("findLostRecording", () => {
  const roots = ["/work/repo"];
  const lost = (changed: string[], data: string[], files: string[] = [], rules: string[] = []) => {
    const parsed = rules.map(parsePathRule);
    return findLostRecording(changed, data, mapDataPaths(data, roots, parsed), roots, parsed, (p) =>
      files.includes(p),
    );
  };

  it("a shard under another root (POSIX, Windows or relative) that ends with the whole path", () => {
    const mapped = "/work/repo/src/pkg/mod.py";
    expect(lost(["src/pkg/mod.py"], [mapped, "/app/src/pkg/mod.py"])).toEqual({
      path: "src/pkg/mod.py",
      recorded: "/app/src/pkg/mod.py",
      rule: { from: "/app/", to: "." },
    });
    expect(lost(["src/pkg/mod.py"], [mapped, "D:\\a\\repo\\src\\pkg\\mod.py"])?.rule).toEqual({
      from: "D:\\a\\repo\\",
      to: ".",
    });
    expect(lost(["src/pkg/mod.py"], [mapped, "app/src/pkg/mod.py"])?.rule).toEqual({
      from: "app/",
      to: ".",
    });
  });

  it("relative data recorded in a subdirectory: its path ends the unmapped changed path", () => {
    // backend/ ran its own tests with relative_files: "app/core.py" is backend/app/core.py.
    expect(
      lost(["backend/app/core.py", "setup.py"], ["app/core.py", "setup.py"], ["setup.py"]),
    ).toEqual({
      path: "backend/app/core.py",
      recorded: "app/core.py",
      rule: { from: "", to: "backend/" },
    });
    // Not when a file of that path exists here, nor when the changed file is mapped already.
    expect(lost(["backend/app/core.py"], ["app/core.py"], ["app/core.py"])).toBeNull();
    expect(lost(["backend/app/core.py"], ["app/core.py", "backend/app/core.py"])).toBeNull();
  });

  it("an installed copy of exactly the module: src layout, single module, .tox in the repo", () => {
    const site = "/venv/lib/python3.11/site-packages/";
    expect(lost(["src/pkg/mod.py"], [`${site}pkg/mod.py`])?.rule).toEqual({
      from: site,
      to: "src/",
    });
    expect(lost(["mymod.py"], [`${site}mymod.py`])?.rule).toEqual({ from: site, to: "." });
    const tox = "/work/repo/.tox/py311/lib/python3.11/site-packages/";
    expect(
      lost(["src/pkg/mod.py"], [`${tox}pkg/mod.py`], [`${tox.slice(11)}pkg/mod.py`])?.rule,
    ).toEqual({ from: tox, to: "src/" });
  });

  it("leaves alone: the file's own paths, files that exist here, other modules of one name", () => {
    const site = "/venv/lib/python3.11/site-packages/";
    // A vendored copy that is a file of the repository is another file, not a recording.
    expect(
      lost(["src/pkg/mod.py"], ["/work/repo/vendor/src/pkg/mod.py"], ["vendor/src/pkg/mod.py"]),
    ).toBeNull();
    expect(lost(["app/utils/__init__.py"], [`${site}requests/utils/__init__.py`])).toBeNull();
    expect(lost(["pkg/mod.py"], ["/elsewhere/other/mod.py"])).toBeNull();
    // Mapped by a rule onto the changed file: one of its own recordings.
    expect(lost(["src/pkg/mod.py"], ["/app/src/pkg/mod.py"], [], ["/app/=."])).toBeNull();
  });
});

describe("findMappedAway", () => {
  const roots = ["/work/repo"];
  const away = (changed: string[], data: string[], rules: string[], files: string[] = []) =>
    findMappedAway(changed, data, roots, rules.map(parsePathRule), (p) => files.includes(p));

  it("a whole-path rule that sends a changed file's own recording elsewhere, whatever the target", () => {
    const rule = parsePathRule("app/ledger.py=app/ledger_v1.py");
    expect(away(["app/ledger.py"], ["app/ledger.py"], ["app/ledger.py=app/ledger_v1.py"])).toEqual({
      path: "app/ledger.py",
      recorded: "app/ledger.py",
      rule,
      to: "app/ledger_v1.py",
    });
    // Onto an existing, unchanged file: still the changed file's data.
    const test = "tests/test_ledger.py";
    expect(away(["app/ledger.py"], ["app/ledger.py"], [`app/ledger.py=${test}`], [test])?.to).toBe(
      test,
    );
    // Absolute data under the root, and a rule that sends it outside the repository.
    expect(
      away(["app/x.py"], ["/work/repo/app/x.py"], ["/work/repo/app/x.py=/elsewhere/x.py"]),
    ).toMatchObject({ recorded: "/work/repo/app/x.py", to: null });
  });

  it("a directory rule whose target is no file here", () => {
    expect(away(["app/ledger.py"], ["app/ledger.py"], ["app/=lib/"])).toMatchObject({
      path: "app/ledger.py",
      rule: { from: "app/", to: "lib/" },
      to: "lib/ledger.py",
    });
    expect(away(["app/ledger.py"], ["app/ledger.py"], ["=tests/"])?.to).toBe("tests/app/ledger.py");
  });

  it("leaves alone: container prefixes, data recorded elsewhere, directory rules onto files here", () => {
    expect(away(["src/a.py"], ["/app/src/a.py"], ["/app/=."])).toBeNull();
    // The rule maps the changed file's own path onto itself.
    expect(away(["src/a.py"], ["/work/repo/src/a.py"], ["/work/repo/=."])).toBeNull();
    // A monorepo's backend/ data that spells a changed root file's path.
    expect(
      away(["setup.py"], ["setup.py", "app/core.py"], ["=backend/"], ["backend/setup.py"]),
    ).toBeNull();
    expect(
      away(["app/core.py"], ["app/core.py"], ["app/=backend/app/"], ["backend/app/core.py"]),
    ).toBeNull();
    // Rules that match other data only; no rules at all; a data path of an unchanged file.
    expect(
      away(["app/ledger.py"], ["app/ledger.py"], ["app/ledger.pyc=x.py", "/ci/=."]),
    ).toBeNull();
    expect(away(["app/ledger.py"], ["app/ledger.py"], [])).toBeNull();
    expect(away(["app/ledger.py"], ["app/other.py"], ["app/other.py=x.py"])).toBeNull();
  });

  it("is refused in one line naming the rule, the data path, the changed file and the fix", () => {
    const error = refuseMappedAway(
      ["app/ledger.py"],
      ["app/ledger.py"],
      roots,
      [parsePathRule("app/ledger.py=tests/test_ledger.py")],
      (p) => p === "tests/test_ledger.py",
    );
    expect(error?.exitCode).toBe(2);
    expect(error?.message).toBe(
      'the path-map rule "app/ledger.py=tests/test_ledger.py" sends the coverage data\'s "app/ledger.py", the recording of the changed file app/ledger.py, to "tests/test_ledger.py", so app/ledger.py would pass as unmeasured',
    );
    expect(error?.fix).toBe(
      'drop the rule (--path-map or the config\'s path-map), or narrow it so that it no longer matches "app/ledger.py"',
    );
    const nowhere = refuseMappedAway(
      ["app/ledger.py"],
      ["app/ledger.py"],
      roots,
      [parsePathRule("app/ledger.py=app/ledger_v1.py")],
      () => false,
    );
    expect(nowhere?.message).toContain(', to "app/ledger_v1.py" (no file here), so');
  });
});

describe("findAmbiguousRun", () => {
  const worker = "services/worker/";
  const ambiguous = (data: string[], files: string[], rules: string[] = [], dirs = [worker]) =>
    findAmbiguousRun(data, rules.map(parsePathRule), dirs, (p) => files.includes(p));
  // Two services with the same package: the root's and the worker's.
  const both = [
    "app/__init__.py",
    "app/main.py",
    `${worker}app/__init__.py`,
    `${worker}app/main.py`,
  ];

  it("relative paths that are files both at the root and under the directory", () => {
    expect(ambiguous(["app/main.py"], both)).toEqual({
      recorded: "app/main.py",
      atRoot: "app/main.py",
      dir: worker,
      inDir: `${worker}app/main.py`,
    });
    // Data that also names a file only the directory holds was recorded there.
    expect(
      ambiguous(["app/main.py", "app/charge.py"], [...both, `${worker}app/charge.py`])?.recorded,
    ).toBe("app/main.py");
    // Even with a path that only the root holds besides.
    expect(
      ambiguous(
        ["app/main.py", "app/charge.py", "setup.py"],
        [...both, `${worker}app/charge.py`, "setup.py"],
      )?.recorded,
    ).toBe("app/main.py");
    // A Windows spelling (relative_files on Windows), and the second of several directories.
    expect(ambiguous(["app\\main.py"], both)?.atRoot).toBe("app/main.py");
    expect(ambiguous(["app/main.py"], both, [], ["tests/", worker])?.dir).toBe(worker);
    // A rule that matches other data only does not decide these.
    expect(ambiguous(["app/main.py"], both, ["/ci/=."])?.recorded).toBe("app/main.py");
  });

  it("leaves alone what a rule decides, the data itself tells, or only one place holds", () => {
    expect(ambiguous(["app/main.py"], both, [`=${worker}`])).toBeNull();
    // "=" reads them from the root, as without rules.
    expect(ambiguous(["app/main.py"], both, ["="])).toBeNull();
    // Recorded at the root: the data names the directory's files by their path from the root.
    expect(ambiguous(["app/main.py", `${worker}app/main.py`], both)).toBeNull();
    // Only at the root, only under the directory (refused elsewhere), neither.
    expect(ambiguous(["app/main.py"], ["app/main.py"])).toBeNull();
    expect(ambiguous(["app/main.py"], [`${worker}app/main.py`])).toBeNull();
    expect(ambiguous(["gone.py"], both)).toBeNull();
    // Absolute paths, paths above the root, no directory to compare with.
    expect(ambiguous(["/work/repo/app/main.py", "C:\\src\\app\\main.py"], both)).toBeNull();
    expect(ambiguous(["../app/main.py"], ["../app/main.py", `${worker}../app/main.py`])).toBeNull();
    expect(ambiguous(["app/main.py"], both, [], [])).toBeNull();
  });
});
