// Integration tests of the git adapter against real temporary repositories: every diff edge
// case through patchFromRange, the staged and work-tree modes, user-supplied diffs, the errors
// CI hits (not a repo, unknown base, shallow clones), merge-base semantics and immunity to the
// user's git config.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { devNull, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  changedPathsDirty,
  checkAgainstNameStatus,
  findRepoRoot,
  parseTopAndBases,
  patchFromRange,
  patchFromStaged,
  patchFromWorktree,
  readHeadCommit,
  startRange,
  workTreeBlobIds,
} from "../../src/adapters/git.js";
import { FreezegateError, GitError, InputError, InternalError } from "../../src/core/errors.js";
import type { ChangedFile, Patch } from "../../src/core/model.js";
import { parseUnifiedDiff } from "../../src/core/unified-diff.js";
import { makeTempRepo, runGit, type TempRepo } from "../helpers/git-repo.js";

// The adapter inherits process.env. Run it without the developer's global/system git config
// (the hostile-config test below puts a config back on purpose).
const savedEnv: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("GIT_")) savedEnv[key] = process.env[key];
  }
  for (const key of Object.keys(savedEnv)) delete process.env[key];
  for (const key of ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"]) savedEnv[key] ??= undefined;
  process.env.GIT_CONFIG_GLOBAL = devNull;
  process.env.GIT_CONFIG_NOSYSTEM = "1";
});
afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(branch?: string): TempRepo {
  const r = makeTempRepo(branch ? { branch } : {});
  cleanups.push(() => r.cleanup());
  return r;
}

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-plain-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const lines = (n: number, word = "line") =>
  Array.from({ length: n }, (_, i) => `${word} ${i + 1}\n`).join("");

function file(path: string, over: Partial<ChangedFile> = {}): ChangedFile {
  return {
    path,
    oldPath: null,
    status: "modified",
    binary: false,
    submodule: false,
    addedLines: [],
    ...over,
  };
}

/** Commit `setup` as the base, apply `change`, commit, and audit base...HEAD. */
async function rangeOf(
  setup: (r: TempRepo) => void,
  change: (r: TempRepo) => void,
): Promise<{ r: TempRepo; patch: Patch; base: string }> {
  const r = repo();
  setup(r);
  const base = r.commit("base");
  change(r);
  r.commit("change");
  const patch = withoutBlobs(await patchFromRange(r.dir, base), r.dir);
  return { r, patch, base };
}

/**
 * Checks every `newBlob` against git's own id of the file at `head` ("" for the index), then
 * drops it so the edge-case tests can compare the rest of each file exactly.
 */
function withoutBlobs(patch: Patch, dir: string, head = "HEAD"): Patch {
  const files = patch.files.map(({ newBlob, ...rest }) => {
    // No index line (pure renames, mode-only changes): no blob; any content change has one.
    if (rest.status === "deleted") expect(newBlob).toBeUndefined();
    else if (newBlob !== undefined) {
      expect(newBlob, rest.path).toBe(runGit(dir, ["rev-parse", `${head}:${rest.path}`]).trim());
    } else expect(rest.addedLines, rest.path).toEqual([]);
    return rest;
  });
  return { ...patch, files };
}

async function caught(promise: Promise<unknown>): Promise<FreezegateError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FreezegateError);
    return error as FreezegateError;
  }
  throw new Error("expected the call to fail");
}

describe("patchFromRange: edge cases through real git", () => {
  it("reports a pure rename with no lines, and a rename with edits with only the edits", async () => {
    const { patch, base } = await rangeOf(
      (r) => {
        r.write("a.py", lines(10));
        r.write("b.py", lines(10, "other"));
      },
      (r) => {
        r.git("mv", "a.py", "moved.py");
        mkdirSync(r.path("pkg"));
        r.git("mv", "b.py", "pkg/b2.py");
        r.write("pkg/b2.py", lines(10, "other").replace("other 3\n", "other three\n"));
      },
    );
    expect(patch.source).toMatchObject({ kind: "range", base, head: "HEAD", mergeBase: base });
    expect(patch.files).toEqual([
      file("moved.py", { oldPath: "a.py", status: "renamed" }),
      file("pkg/b2.py", { oldPath: "b.py", status: "renamed", addedLines: [3] }),
    ]);
  });

  it("shows a copy as a new file with all its lines (no -C), while the parser reads git -C", async () => {
    const { r, patch, base } = await rangeOf(
      (r) => r.write("src.py", lines(10)),
      (r) => {
        r.write("src.py", lines(10).replace("line 1\n", "line one\n"));
        r.write("copy.py", lines(10).replace("line 5\n", "line five\n"));
      },
    );
    expect(patch.files).toEqual([
      file("copy.py", { status: "added", addedLines: Array.from({ length: 10 }, (_, i) => i + 1) }),
      file("src.py", { addedLines: [1] }),
    ]);
    const withCopies = r.git("diff", "-U0", "-C", "--find-copies-harder", base, "HEAD");
    expect(withCopies).toContain("copy from src.py");
    expect(parseUnifiedDiff(withCopies)).toContainEqual(
      file("copy.py", { oldPath: "src.py", status: "copied", addedLines: [5] }),
    );
  });

  it("reads paths with spaces, tabs, quotes, backslashes and non-ASCII", async () => {
    const names = ["my dir/a file.py", "tab\there.py", 'q"uote.py', "back\\slash.py", "été/ü.py"];
    const { patch } = await rangeOf(
      (r) => {
        for (const n of names) r.write(n, lines(3));
      },
      (r) => {
        for (const n of names) r.write(n, lines(3).replace("line 2\n", "line two\n"));
        r.write("x b/y c.py", lines(2));
      },
    );
    expect(patch.files).toEqual(
      [
        ...names.map((n) => file(n, { addedLines: [2] })),
        file("x b/y c.py", { status: "added", addedLines: [1, 2] }),
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
  });

  it("marks binary files (new, modified, deleted) with no lines", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write("m.bin", Buffer.from([1, 0, 2]));
        r.write("d.bin", Buffer.from([3, 0, 4]));
      },
      (r) => {
        r.write("m.bin", Buffer.from([1, 0, 9]));
        r.remove("d.bin");
        r.write("n.bin", Buffer.from([0, 0, 0]));
      },
    );
    expect(patch.files).toEqual([
      file("d.bin", { status: "deleted", binary: true }),
      file("m.bin", { binary: true }),
      file("n.bin", { status: "added", binary: true }),
    ]);
  });

  it("reads the lines of text files that .gitattributes mark binary; real binaries stay binary", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write(".gitattributes", "gen_*.py -diff\nvendored.py binary\nx.py diff=opaque\n");
        r.write("gen_a.py", lines(4));
        r.write("vendored.py", lines(4));
        r.write("x.py", lines(4));
        r.write("m.bin", Buffer.from([1, 0, 2]));
      },
      (r) => {
        r.git("config", "diff.opaque.binary", "true");
        r.write("gen_a.py", lines(4).replace("line 2\n", "edit 2\n"));
        r.write("vendored.py", `${lines(4)}line 5\n`);
        r.write("x.py", lines(4).replace("line 1\n", "edit 1\n"));
        r.write("m.bin", Buffer.from([1, 0, 9]));
      },
    );
    expect(patch.files).toEqual([
      file("gen_a.py", { addedLines: [2] }),
      file("m.bin", { binary: true }),
      file("vendored.py", { addedLines: [5] }),
      file("x.py", { addedLines: [1] }),
    ]);
  });

  it("reports deleted, new and new empty files", async () => {
    const { patch } = await rangeOf(
      (r) => r.write("old.py", lines(3)),
      (r) => {
        r.remove("old.py");
        r.write("new.py", lines(4, "fresh"));
        r.write("empty.py", "");
      },
    );
    expect(patch.files).toEqual([
      file("empty.py", { status: "added" }),
      file("new.py", { status: "added", addedLines: [1, 2, 3, 4] }),
      file("old.py", { status: "deleted" }),
    ]);
  });

  it("reports mode-only changes, including a header that splits ambiguously", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write("run.sh", lines(2));
        r.write("x b/y", lines(2));
      },
      (r) => {
        r.chmod("run.sh", 0o755);
        r.chmod("x b/y", 0o755);
      },
    );
    expect(patch.files).toEqual([
      file("run.sh", { status: "mode-changed" }),
      file("x b/y", { status: "mode-changed" }),
    ]);
  });

  it("reports a file replaced by a symlink as one type change", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write("target.py", lines(2));
        r.write("link.py", lines(3));
      },
      (r) => {
        r.remove("link.py");
        r.symlink("target.py", "link.py");
      },
    );
    expect(patch.files).toEqual([file("link.py", { status: "type-changed", addedLines: [1] })]);
  });

  it("marks submodule changes (added, moved) with no lines", async () => {
    const sub = repo();
    sub.write("s.py", lines(1));
    sub.commit("one");
    const r = repo();
    r.write("top.py", lines(1));
    const base = r.commit("base");
    r.git("-c", "protocol.file.allow=always", "submodule", "-q", "add", sub.dir, "libs/sub");
    const added = r.commit("add submodule");
    const addPatch = withoutBlobs(await patchFromRange(r.dir, base), r.dir);
    expect(addPatch.files).toEqual([
      file(".gitmodules", { status: "added", addedLines: [1, 2, 3] }),
      file("libs/sub", { status: "added", submodule: true }),
    ]);
    sub.write("s.py", lines(2));
    sub.commit("two");
    runGit(join(r.dir, "libs/sub"), [
      "-c",
      "protocol.file.allow=always",
      "pull",
      "-q",
      "origin",
      "main",
    ]);
    r.commit("bump submodule");
    expect(withoutBlobs(await patchFromRange(r.dir, added), r.dir).files).toEqual([
      file("libs/sub", { submodule: true }),
    ]);
  });

  it("handles no newline at end of file and CRLF content", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write("nl.py", "one\ntwo\nthree");
        r.write("crlf.py", "a\r\nb\r\nc\r\n");
      },
      (r) => {
        r.write("nl.py", "one\ntwo\nTHREE");
        r.write("crlf.py", "a\r\nB\r\nc\r\nd\r\n");
        r.write("open.py", "x\ny");
      },
    );
    expect(patch.files).toEqual([
      file("crlf.py", { addedLines: [2, 4] }),
      file("nl.py", { addedLines: [3] }),
      file("open.py", { status: "added", addedLines: [1, 2] }),
    ]);
  });

  it("numbers several -U0 hunks, pure deletions and header-like content correctly", async () => {
    const { patch } = await rangeOf(
      (r) => {
        r.write("m.py", lines(30));
        r.write("h.sql", "a\n-- sql comment\n-- another\nb\n");
      },
      (r) => {
        const m = lines(30)
          .replace("line 2\n", "line two\n")
          .replace("line 10\n", "line 10\ninserted\n")
          .replace("line 15\n", "")
          .replace("line 25\n", "line 25 changed\n");
        r.write("m.py", `${m}line 31\n`);
        r.write("h.sql", "a\n++ counter\n++ again\nb\n-- tail\n");
      },
    );
    expect(patch.files).toEqual([
      file("h.sql", { addedLines: [2, 3, 5] }),
      file("m.py", { addedLines: [2, 11, 25, 31] }),
    ]);
  });
});

describe("merge-base semantics", () => {
  it("audits only the branch's changes, never what the base branch did after the fork", async () => {
    const r = repo();
    r.write("shared.py", lines(20));
    r.write("base-only.py", lines(3));
    const fork = r.commit("fork point");
    r.git("checkout", "-q", "-b", "feature");
    r.write("shared.py", lines(20).replace("line 3\n", "feature 3\n"));
    r.write("feature.py", lines(2));
    r.commit("feature work");
    r.git("checkout", "-q", "main");
    r.write("shared.py", lines(20).replace("line 17\n", "main 17\n"));
    r.write("base-only.py", lines(5));
    r.commit("main moves on");
    r.git("checkout", "-q", "feature");

    // The scenario discriminates: a two-dot diff would drag main's changes in.
    const twoDot = parseUnifiedDiff(r.git("diff", "-U0", "main", "feature"));
    expect(twoDot.map((f) => f.path)).toContain("base-only.py");

    const patch = withoutBlobs(await patchFromRange(r.dir, "main"), r.dir);
    expect(patch.source).toEqual({ kind: "range", base: "main", head: "HEAD", mergeBase: fork });
    expect(patch.files).toEqual([
      file("feature.py", { status: "added", addedLines: [1, 2] }),
      file("shared.py", { addedLines: [3] }),
    ]);
    // An explicit head works from any checkout.
    r.git("checkout", "-q", "main");
    expect(
      withoutBlobs(await patchFromRange(r.dir, "main", "feature"), r.dir, "feature").files,
    ).toEqual(patch.files);
  });

  /**
   * A criss-cross history: branches x and y each merged the other's side, so y and x (checked
   * out, with one more commit) have two merge bases. `extra` runs before the last commit.
   */
  function crissCross(extra: (r: TempRepo) => void = () => {}): TempRepo {
    const r = repo();
    r.write("a.py", lines(4));
    r.write("sub/b.py", lines(2));
    r.commit("root");
    r.git("checkout", "-q", "-b", "x");
    r.write("x.py", lines(2));
    r.commit("x");
    r.git("checkout", "-q", "main");
    r.write("m.py", lines(3));
    r.commit("m");
    r.git("checkout", "-q", "-b", "y");
    r.git("merge", "-q", "--no-edit", "x");
    r.git("checkout", "-q", "x");
    r.git("merge", "-q", "--no-edit", "main");
    r.write("a.py", lines(4).replace("line 2\n", "x 2\n"));
    extra(r);
    r.commit("x again");
    return r;
  }

  it("with several merge bases (criss-cross merges) diffs from the one git merge-base names", async () => {
    const r = crissCross();
    const bases = r.git("merge-base", "--all", "y", "x").trim().split("\n");
    expect(bases).toHaveLength(2); // the scenario really has two merge bases
    const chosen = r.git("merge-base", "y", "x").trim();
    const patch = withoutBlobs(await patchFromRange(r.dir, "y"), r.dir);
    expect(patch.source).toEqual({ kind: "range", base: "y", head: "HEAD", mergeBase: chosen });
    expect(patch.files).toEqual(
      parseUnifiedDiff(r.git("diff", "-U0", "-M", chosen, "HEAD")).map(({ newBlob, ...f }) => f),
    );
  });

  it("startRange: root and patch from a subdirectory, as findRepoRoot and patchFromRange give them", async () => {
    const r = crissCross((repo) => repo.write("sub/b.py", lines(3)));
    r.git("branch", "plain", "HEAD~1");
    const sub = join(r.dir, "sub");
    const root = await findRepoRoot(sub);
    expect(r.git("merge-base", "--all", "y", "HEAD").trim().split("\n")).toHaveLength(2);
    // The diffs it starts and does not use must not leave their temporary files behind.
    await leavesNoTemporaryFile(() => checkStartRange(r, sub, root));
  });

  it("startRange gives the same answers from one shell process and from two git processes", async () => {
    const r = crissCross((repo) => repo.write("sub/b.py", lines(3)));
    r.git("branch", "plain", "HEAD~1");
    // A ref name a shell would run commands from if it ever read it as code.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, on purpose
    const WEIRD_REF = "we$(touch${IFS}pwned);`touch${IFS}pwned`";
    r.git("branch", WEIRD_REF, "HEAD~1");
    const sub = join(r.dir, "sub");
    const root = await findRepoRoot(sub);
    await leavesNoTemporaryFile(async () => {
      for (const base of ["y", "plain", WEIRD_REF, "no-such-ref", "HEAD"]) {
        const one = startRange(sub, base, "HEAD", { oneProcess: true });
        const two = startRange(sub, base, "HEAD", { oneProcess: false });
        expect(await one?.root, base).toBe(await two?.root);
        expect(await one?.patch(root), base).toEqual(await two?.patch(root));
      }
      const weird = startRange(sub, WEIRD_REF, "HEAD", { oneProcess: true });
      expect((await weird?.patch(root))?.files.map((f) => f.path)).toEqual(
        (await patchFromRange(root, "plain")).files.map((f) => f.path),
      );
    });
    expect(existsSync(join(sub, "pwned"))).toBe(false);
    expect(existsSync(join(root, "pwned"))).toBe(false);
  });

  async function checkStartRange(r: TempRepo, sub: string, root: string): Promise<void> {
    // "y" has two merge bases with HEAD (criss-cross), "plain" one.
    for (const base of ["y", "plain"]) {
      const early = startRange(sub, base);
      expect(early).not.toBeNull();
      expect(await early?.root).toBe(root);
      const patch = await early?.patch(root);
      expect(patch, base).toEqual(await patchFromRange(root, base));
      expect(patch?.source).toMatchObject({ mergeBase: r.git("merge-base", base, "HEAD").trim() });
    }
    // What it cannot answer, it leaves to findRepoRoot and patchFromRange (which say why).
    const unknown = startRange(sub, "no-such-ref");
    expect(await unknown?.root).toBeNull();
    expect(await unknown?.patch(root)).toBeNull();
    r.git("checkout", "-q", "--orphan", "other");
    r.commit("unrelated");
    const unrelated = startRange(sub, "main");
    expect(await unrelated?.root).toBe(root);
    expect(await unrelated?.patch(root)).toBeNull();
    await expect(patchFromRange(root, "main")).rejects.toThrow(/no common history/);
    expect(startRange(sub, "-x")).toBeNull();
    expect(startRange(sub, ":/fix..")).toBeNull();
  }

  it("parseTopAndBases reads rev-parse's shape and nothing else", () => {
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const c = "c".repeat(40);
    const d = "d".repeat(64);
    expect(parseTopAndBases(`/repo\n${a}\n${b}\n^${c}\n`)).toEqual({
      root: "/repo",
      mergeBases: [c],
    });
    expect(parseTopAndBases(`/odd\nname\n${a}\n${b}\n^${c}\n^${a}\n`)).toEqual({
      root: "/odd\nname",
      mergeBases: [c, a],
    });
    expect(parseTopAndBases(`/repo\n${d}\n${d}\n^${d}\n`)?.mergeBases).toEqual([d]);
    expect(parseTopAndBases(`/repo\n${a}\n${b}\n`)).toEqual({ root: "/repo", mergeBases: [] });
    for (const bad of [
      `${a}\n${b}\n^${c}\n`, // no root
      `/repo\n${a}\n^${c}\n`, // one end
      `/repo\n^${c}\n${a}\n${b}\n`, // a base before the ends
      `/repo\n${a}\n${b}\n${c}\n`, // three ends
      "",
    ]) {
      expect(parseTopAndBases(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it("leaves no temporary file behind (git's diff output goes through one)", async () => {
    const r = repo();
    r.write("a.py", lines(3));
    r.commit("base");
    r.git("branch", "base");
    r.write("a.py", lines(5));
    r.commit("change");
    await leavesNoTemporaryFile(async () => {
      const patch = await patchFromRange(r.dir, "base");
      expect(patch.files.map((f) => f.addedLines)).toEqual([[4, 5]]);
      await expect(patchFromRange(r.dir, "no-such-ref")).rejects.toThrow(/does not exist/);
    });
  });

  /** Runs `work` with TMPDIR in a new directory, which must be empty afterwards. */
  async function leavesNoTemporaryFile(work: () => Promise<void>): Promise<void> {
    const scratch = mkdtempSync(join(tmpdir(), "fg-tmpdir-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      await work();
      // A diff that was not waited for (a failed range's) may still be finishing.
      await new Promise((done) => setTimeout(done, 300));
      expect(readdirSync(scratch)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  it("still diffs when no temporary file can be made (the output comes through a pipe)", async () => {
    const r = repo();
    r.write("a.py", lines(3));
    r.commit("base");
    r.git("branch", "base");
    r.write("a.py", lines(5));
    r.commit("change");
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(r.dir, "no-such-directory");
    try {
      const patch = await patchFromRange(r.dir, "base");
      expect(patch.files.map((f) => [f.path, f.addedLines])).toEqual([["a.py", [4, 5]]]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("a base spelled with dots in it (a commit-message search) gets the same diff", async () => {
    const r = repo();
    r.write("a.py", lines(3));
    const fork = r.commit("fork point... of the feature");
    r.write("a.py", lines(6));
    r.commit("feature");
    const patch = await patchFromRange(r.dir, ":/fork point... of");
    expect(patch.source).toMatchObject({ mergeBase: fork });
    expect(patch.files.map((f) => [f.path, f.addedLines])).toEqual([["a.py", [4, 5, 6]]]);
  });

  it("refuses unrelated histories", async () => {
    const r = repo();
    r.write("a.py", lines(1));
    r.commit("main");
    r.git("checkout", "-q", "--orphan", "other");
    r.write("b.py", lines(1));
    r.commit("orphan");
    const error = await caught(patchFromRange(r.dir, "main"));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toMatch(/no common history/);
    expect(error.exitCode).toBe(2);
  });
});

describe("patchFromStaged and patchFromWorktree", () => {
  function workRepo(): TempRepo {
    const r = repo();
    r.write("a.py", lines(5));
    r.write("b.py", lines(5));
    r.write(".gitignore", "ignored/\n*.log\n");
    r.write(".gitattributes", "*.dat -diff\n");
    r.commit("base");
    r.write("a.py", lines(5).replace("line 2\n", "staged 2\n"));
    r.git("add", "a.py");
    r.write("a.py", lines(5).replace("line 2\n", "staged 2\n").replace("line 4\n", "work 4\n"));
    r.write("b.py", lines(5).replace("line 5\n", "work 5\n"));
    r.write("new dir/untracked.py", "u1\nu2\nu3");
    r.write("ignored/skip.py", lines(3));
    r.write("debug.log", lines(3));
    r.write("blob.bin", Buffer.from([7, 0, 7, 10]));
    r.write("table.dat", "text but marked -diff\n");
    r.symlink("a.py", "alias.py");
    return r;
  }

  it("staged: only what is in the index", async () => {
    const r = workRepo();
    // Blob ids are the index's (":path").
    const patch = withoutBlobs(await patchFromStaged(r.dir), r.dir, "");
    expect(patch).toEqual({
      source: { kind: "staged" },
      files: [file("a.py", { addedLines: [2] })],
    });
  });

  it("work tree: staged and unstaged edits plus untracked, non-ignored files with all lines", async () => {
    const r = workRepo();
    const nested = join(r.dir, "vendored");
    mkdirSync(nested);
    runGit(nested, ["init", "-q"]);
    const patch = await patchFromWorktree(r.dir);
    expect(patch.source).toEqual({ kind: "worktree" });
    expect(patch.files).toEqual([
      file("a.py", { addedLines: [2, 4] }),
      file("alias.py", { status: "added", addedLines: [1] }),
      file("b.py", { addedLines: [5] }),
      file("blob.bin", { status: "added", binary: true }),
      file("new dir/untracked.py", { status: "added", addedLines: [1, 2, 3] }),
      // `-diff` in .gitattributes: git would print "Binary files differ", but the file has
      // no NUL, so its lines count (coverage may have measured them).
      file("table.dat", { status: "added", addedLines: [1] }),
      file("vendored", { status: "added", submodule: true }),
    ]);
  });

  it("untracked lines match what git itself would show once the file is added", async () => {
    const r = workRepo();
    const before = await patchFromWorktree(r.dir);
    r.git("add", "-A");
    r.git("rm", "-q", "--cached", "alias.py");
    r.remove("alias.py");
    const after = withoutBlobs(await patchFromStaged(r.dir), r.dir, "");
    const pick = (p: Patch) => p.files.filter((f) => f.status === "added" && f.path !== "alias.py");
    expect(pick(after)).toEqual(pick(before));
  });

  it("works before the first commit", async () => {
    const r = repo();
    r.write("first.py", lines(2));
    r.git("add", "first.py");
    r.write("loose.py", lines(1));
    expect(withoutBlobs(await patchFromStaged(r.dir), r.dir, "").files).toEqual([
      file("first.py", { status: "added", addedLines: [1, 2] }),
    ]);
    expect((await patchFromWorktree(r.dir)).files).toEqual([
      file("first.py", { status: "added", addedLines: [1, 2] }),
      file("loose.py", { status: "added", addedLines: [1] }),
    ]);
    const error = await caught(readHeadCommit(r.dir));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toMatch(/no commits yet/);
  });

  it("work tree: a file removed from the index but kept on disk is refused with a fix", async () => {
    const r = workRepo();
    r.git("rm", "-q", "--cached", "b.py");
    const error = await caught(patchFromWorktree(r.dir));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toBe(
      "b.py is removed from the index but still on disk (git rm --cached?), so the work tree's changes to it cannot be told apart",
    );
    expect(error.fix).toContain("git add b.py");
  });

  it("workTreeBlobIds: the ids `git add` would give the files, checkout filters applied", async () => {
    const r = workRepo();
    r.git("add", "a.py");
    const staged = r.git("ls-files", "-s", "a.py").split(" ")[1];
    // CRLF on disk under core.autocrlf: the bytes differ from the blob, the filtered id not.
    r.git("config", "core.autocrlf", "true");
    r.write("a.py", r.git("show", ":a.py").replace(/\n/g, "\r\n"));
    const ids = await workTreeBlobIds(r.dir, ["a.py", "b.py"]);
    expect(ids.get("a.py")).toBe(staged);
    expect(ids.get("b.py")).toBe(r.git("hash-object", "b.py").trim());
    expect(await workTreeBlobIds(r.dir, [])).toEqual(new Map());
  });

  it("workTreeBlobIds: names git's --stdin-paths would misread (quotes, newline, CR, backslash)", async () => {
    const r = workRepo();
    const names = ['"q".py', "n\nl.py", "cr\r.py", "b\\s.py", "t\tab.py", "\u00e9t\u00e9.py"];
    for (const [i, n] of names.entries()) r.write(n, `V = ${i}\n`);
    const ids = await workTreeBlobIds(r.dir, names);
    for (const n of names) expect(ids.get(n), n).toBe(r.git("hash-object", "--", n).trim());
    expect(new Set(ids.values()).size).toBe(names.length);
  });

  it("staged: refuses an index with unresolved conflicts", async () => {
    const r = repo();
    r.write("f.py", "a\nb\n");
    r.commit("base");
    r.git("checkout", "-q", "-b", "side");
    r.write("f.py", "a\nside\n");
    r.commit("side");
    r.git("checkout", "-q", "main");
    r.write("f.py", "a\nmain\n");
    r.commit("main");
    expect(() => r.git("merge", "-q", "side")).toThrow();
    const error = await caught(patchFromStaged(r.dir));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toMatch(/unresolved merge conflicts \(f\.py\)/);
  });
});

describe("user-supplied diffs", () => {
  it("a user's `git diff --no-prefix` and default `git diff` read like the adapter's output", async () => {
    const { r, patch, base } = await rangeOf(
      (r) => {
        r.write("src/app.py", lines(12));
        r.write("old name.py", lines(4));
      },
      (r) => {
        r.write("src/app.py", lines(12).replace("line 6\n", "six\n"));
        r.git("mv", "old name.py", "new name.py");
        r.write("tests/test_app.py", lines(3));
      },
    );
    const noPrefix = r.git("diff", "--no-prefix", `${base}...HEAD`);
    expect(noPrefix).toContain("diff --git src/app.py src/app.py");
    expect(parseUnifiedDiff(noPrefix)).toEqual(patch.files);
    expect(parseUnifiedDiff(r.git("diff", `${base}...HEAD`))).toEqual(patch.files);
  });
});

describe("errors", () => {
  it("findRepoRoot: the root from a subdirectory; GitError outside a repo; InputError for no dir", async () => {
    const r = repo();
    r.write("deep/er/x.py", "x\n");
    expect(await findRepoRoot(join(r.dir, "deep/er"))).toBe(r.dir);

    const plain = tempDir();
    const outside = await caught(findRepoRoot(plain));
    expect(outside).toBeInstanceOf(GitError);
    expect(outside.message).toBe(`${plain} is not inside a git repository`);
    expect(outside.fix).toBe(
      "run freezegate inside your repository's work tree, or point -C at it (`git init` starts a new one)",
    );

    expect(await caught(findRepoRoot(join(plain, "missing")))).toBeInstanceOf(InputError);

    runGit(plain, ["init", "-q", "--bare", "bare.git"]);
    const bare = await caught(findRepoRoot(join(plain, "bare.git")));
    expect(bare).toBeInstanceOf(GitError);
    expect(bare.message).toMatch(/not inside a git work tree/);
  });

  it("unknown base: says it is missing and how to fetch it", async () => {
    const upstream = repo();
    upstream.write("a.py", lines(1));
    upstream.commit("one");
    const clone = tempDir();
    runGit(clone, ["clone", "-q", upstream.dir, "c"]);
    const dir = join(clone, "c");
    const error = await caught(patchFromRange(dir, "origin/release"));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toBe(
      "base ref 'origin/release' does not exist in this clone (or is not a commit); nearest refs here: origin/main, main",
    );
    expect(error.fix).toContain("`git fetch origin release:refs/remotes/origin/release`");
    expect(error.fix).toContain("fetch-depth: 0");
    const head = await caught(patchFromRange(dir, "origin/main", "no-such-branch"));
    expect(head.message).toMatch(/head ref 'no-such-branch' does not exist/);
    expect((await caught(patchFromRange(dir, "--output=x"))).message).toMatch(/is not a ref name/);
  });

  it("a base that is a range, a tree, an option or an ambiguous name: says which, never guesses", async () => {
    const r = repo("main");
    r.write("a.py", lines(2));
    r.commit("one");
    r.git("checkout", "-q", "-b", "feature");
    r.write("a.py", lines(3));
    r.commit("two");
    const range = await caught(patchFromRange(r.dir, "main..feature"));
    expect(range.message).toBe("--base 'main..feature' is a range, not one ref");
    expect(range.fix).toContain("--base main");
    const tree = await caught(patchFromRange(r.dir, "HEAD^{tree}"));
    expect(tree.message).toBe("--base 'HEAD^{tree}' names a tree, not a commit");
    const option = await caught(patchFromRange(r.dir, "-p"));
    expect(option.message).toBe(`--base '-p' is not a ref name (it starts with "-")`);
    // A tag with the branch's name: git would silently take the tag.
    r.git("tag", "main", "HEAD");
    const ambiguous = await caught(patchFromRange(r.dir, "main"));
    expect(ambiguous).toBeInstanceOf(GitError);
    expect(ambiguous.message).toBe(
      "the ref 'main' is ambiguous: more than one branch, tag or remote has that name",
    );
    expect(ambiguous.fix).toContain("refs/heads/main");
    const early = startRange(r.dir, "main");
    expect(await early?.patch(r.dir)).toBeNull();
    expect((await patchFromRange(r.dir, "refs/heads/main")).files).toHaveLength(1);
  });

  it("a missing local branch as base: fetching it from origin then needs --base origin/NAME", async () => {
    const upstream = repo();
    upstream.write("a.py", lines(1));
    upstream.commit("one");
    const clone = tempDir();
    runGit(clone, ["clone", "-q", upstream.dir, "c"]);
    const error = await caught(patchFromRange(join(clone, "c"), "release"));
    expect(error.fix).toContain(
      "`git fetch origin release:refs/remotes/origin/release`, then pass --base origin/release",
    );
  });

  it("shallow clones: base not fetched, then fetched but too shallow, then deepened", async () => {
    const up = repo();
    up.write("app.py", lines(10));
    up.commit("c1");
    up.write("app.py", lines(10).replace("line 1\n", "one\n"));
    up.commit("c2");
    up.git("checkout", "-q", "-b", "feature");
    up.write("app.py", lines(10).replace("line 1\n", "one\n").replace("line 5\n", "five\n"));
    up.commit("f1");
    up.write("feature.py", lines(2));
    up.commit("f2");
    up.git("checkout", "-q", "main");
    up.write("main.py", lines(1));
    up.commit("c3");

    const parent = tempDir();
    runGit(parent, ["clone", "-q", "--depth", "1", "--branch", "feature", `file://${up.dir}`, "c"]);
    const dir = join(parent, "c");

    const missing = await caught(patchFromRange(dir, "origin/main"));
    expect(missing).toBeInstanceOf(GitError);
    expect(missing.message).toMatch(/does not exist in this shallow clone/);
    expect(missing.fix).toContain("`git fetch --unshallow origin main:refs/remotes/origin/main`");
    expect(missing.fix).toContain("fetch-depth: 0");
    // The GitHub Action passes the base as a full commit id, which rev-parse --verify takes
    // whether or not the object is here. Before: "names a non-commit object".
    const mainSha = up.git("rev-parse", "main").trim();
    const byId = await caught(patchFromRange(dir, mainSha));
    expect(byId.message).toBe(
      `base ref '${mainSha}' does not exist in this shallow clone (or is not a commit)`,
    );
    expect(byId.fix).toContain("fetch-depth: 0");

    runGit(dir, ["fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main"]);
    const shallow = await caught(patchFromRange(dir, "origin/main"));
    expect(shallow).toBeInstanceOf(GitError);
    expect(shallow.message).toMatch(
      /no merge base between 'origin\/main' and 'HEAD': this clone is shallow/,
    );
    expect(shallow.fix).toContain("fetch-depth: 0");
    expect(shallow.fix).toContain("--deepen");

    runGit(dir, ["fetch", "-q", "--unshallow", "origin"]);
    const patch = withoutBlobs(await patchFromRange(dir, "origin/main"), dir);
    expect(patch.files).toEqual([
      file("app.py", { addedLines: [5] }),
      file("feature.py", { status: "added", addedLines: [1, 2] }),
    ]);
  });

  it("quotes git's own message when git fails unexpectedly", async () => {
    const r = repo();
    r.write("a.py", lines(2));
    const base = r.commit("base");
    r.write("a.py", lines(3));
    r.commit("change");
    // Delete the base version's blob so `git diff` cannot read it.
    const blob = r.git("rev-parse", `${base}:a.py`).trim();
    rmSync(join(r.dir, ".git/objects", blob.slice(0, 2), blob.slice(2)));
    const error = await caught(patchFromRange(r.dir, base));
    expect(error).toBeInstanceOf(GitError);
    expect(error.message).toMatch(/^git diff failed: unable to read [0-9a-f]{40}$/);
    expect(error.fix).toMatch(/run `git diff .*` in/);
  });

  it("checkAgainstNameStatus: a parse that disagrees with git is an internal error", () => {
    const names = Buffer.from("M\0a.py\0R100\0old.py\0new.py\0");
    const ok = [file("a.py"), file("new.py", { oldPath: "old.py", status: "renamed" })];
    expect(() => checkAgainstNameStatus(ok, names)).not.toThrow();
    const wrong = [file("a.py"), file("new.py", { status: "added" })];
    expect(() => checkAgainstNameStatus(wrong, names)).toThrow(InternalError);
    expect(() => checkAgainstNameStatus([file("a.py")], names)).toThrow(/R old\.py -> new\.py/);
  });
});

describe("changedPathsDirty", () => {
  it("lists paths whose work-tree state differs from HEAD, in input order", async () => {
    const r = repo();
    r.write("same.py", lines(2));
    r.write("edited.py", lines(2));
    r.write("gone.py", lines(2));
    r.write("touched.py", lines(2));
    r.write("sp ace.py", lines(2));
    r.write(".gitignore", "*.tmp\n");
    r.commit("base");
    r.write("edited.py", lines(3));
    r.remove("gone.py");
    r.write("touched.py", lines(2)); // rewritten with identical content
    r.write("sp ace.py", "changed\n");
    r.write("untracked.py", "u\n");
    r.write("ignored.tmp", "i\n");
    const paths = [
      "same.py",
      "edited.py",
      "gone.py",
      "touched.py",
      "sp ace.py",
      "untracked.py",
      "ignored.tmp",
      "never-existed.py",
    ];
    expect(await changedPathsDirty(r.dir, paths)).toEqual([
      "edited.py",
      "gone.py",
      "sp ace.py",
      "untracked.py",
      "ignored.tmp",
    ]);
    expect(await changedPathsDirty(r.dir, [])).toEqual([]);
  });
});

describe("immunity to the user's git config and environment", () => {
  it("gives the same patches under a hostile global config, GIT_DIFF_OPTS and GIT_EXTERNAL_DIFF", async () => {
    const sub = repo();
    sub.write("s.py", lines(1));
    sub.commit("one");
    const r = repo();
    r.git("-c", "protocol.file.allow=always", "submodule", "-q", "add", sub.dir, "sub");
    r.write("a.py", lines(40));
    r.write("été.py", lines(3));
    r.write("blank.py", "a\n\nb\n\nc\n");
    r.write("moved.py", lines(8, "move"));
    r.write("dup.py", lines(8, "dup"));
    // A change where patience and myers disagree about which lines were added.
    r.write("algo.txt", "e\na\nd\nc\nb\ne\na\n");
    const base = r.commit("base");
    r.write("a.py", lines(40).replace("line 5\n", "five\n").replace("line 9\n", "nine\n"));
    r.write("été.py", lines(3).replace("line 2\n", "two\n"));
    r.write("blank.py", "a\n\nB\n\nc\n");
    r.git("mv", "moved.py", "renamed.py");
    r.write("copied.py", lines(8, "dup"));
    r.write("algo.txt", "a\na\na\ne\na\nd\n");
    sub.write("s.py", lines(2));
    sub.commit("two");
    runGit(r.path("sub"), ["-c", "protocol.file.allow=always", "pull", "-q", "origin", "main"]);
    r.commit("change");
    r.write("a.py", lines(40).replace("line 30\n", "thirty\n"));
    r.git("add", "a.py");
    r.write("untracked.py", lines(2));

    const clean = {
      range: withoutBlobs(await patchFromRange(r.dir, base), r.dir),
      staged: await patchFromStaged(r.dir),
      worktree: await patchFromWorktree(r.dir),
    };

    const home = tempDir();
    const external = join(home, "ext.sh");
    writeFileSync(external, "#!/bin/sh\necho 'external diff says hello'\n", { mode: 0o755 });
    writeFileSync(join(home, "attributes"), "* -diff\n");
    writeFileSync(join(home, "order"), "*.py\nété.py\n");
    const config = join(home, "gitconfig");
    writeFileSync(
      config,
      [
        "[diff]",
        "\tnoprefix = true",
        "\tmnemonicPrefix = true",
        `\texternal = ${external}`,
        "\trenames = copies",
        "\talgorithm = patience",
        "\tsuppressBlankEmpty = true",
        "\tcontext = 7",
        "\tinterHunkContext = 9",
        "\tignoreSubmodules = all",
        "\trelative = true",
        "\tindentHeuristic = false",
        `\torderFile = ${join(home, "order")}`,
        "[color]",
        "\tui = always",
        "\tdiff = always",
        "[core]",
        "\tquotePath = true",
        `\tattributesFile = ${join(home, "attributes")}`,
        "",
      ].join("\n"),
    );
    const hostile = {
      GIT_CONFIG_GLOBAL: config,
      GIT_DIFF_OPTS: "--unified=5",
      GIT_EXTERNAL_DIFF: external,
    };
    // The hostile settings do change plain `git diff` output, so this test can fail.
    const plain = runGit(r.dir, ["diff", base, "HEAD"], hostile);
    expect(plain).toContain("external diff says hello");
    const noExt = runGit(r.dir, ["diff", "--no-ext-diff", base, "HEAD"], hostile);
    expect(noExt).toContain("\u001b[");
    expect(noExt).not.toContain("diff --git a/");

    const saved = { ...process.env };
    Object.assign(process.env, hostile);
    try {
      expect(withoutBlobs(await patchFromRange(r.dir, base), r.dir)).toEqual(clean.range);
      expect(await patchFromStaged(r.dir)).toEqual(clean.staged);
      expect(await patchFromWorktree(r.dir)).toEqual(clean.worktree);
    } finally {
      for (const key of Object.keys(hostile)) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    expect(clean.range.files.map((f) => f.path)).toEqual([
      "a.py",
      "algo.txt",
      "blank.py",
      "copied.py",
      "renamed.py",
      "sub",
      "été.py",
    ]);
    expect(clean.range.files[1]).toEqual(file("algo.txt", { addedLines: [2, 3, 6] }));
    expect(clean.range.files[3]).toEqual(
      file("copied.py", { status: "added", addedLines: [1, 2, 3, 4, 5, 6, 7, 8] }),
    );
  });
});
