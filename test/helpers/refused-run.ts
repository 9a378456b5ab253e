// The shape of a bad-input case: the bundled example as a real repository plus a scratch
// directory for inputs outside it, and a run that must be refused (exit 2, one line naming
// the cause and not a wrong one) while leaving the repository exactly as it was.

import { mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { type BoundedRunOptions, runCliBounded } from "./bounded-cli.js";
import { expectOneLineError } from "./cli.js";
import { makeDemoRepo } from "./demo-repo.js";
import type { TempRepo } from "./git-repo.js";
import { treeState } from "./tree-state.js";

export interface BadInputCase {
  readonly repo: TempRepo;
  /** A directory outside the repository, for inputs named by path. */
  readonly scratch: string;
  /** Writes `content` to `name` in the scratch directory; returns its path. */
  scratchFile(name: string, content: string | Buffer): string;
  /**
   * Runs the CLI in the repository: exit 2, one line matching `cause` (and not `wrong`),
   * nothing in the repository written or lost. Returns the line.
   */
  refused(
    args: string[],
    cause: RegExp,
    opts?: { wrong?: RegExp } & Omit<BoundedRunOptions, "cwd">,
  ): Promise<string>;
  /**
   * Runs `body` with quarantine.json moved away, so that freeze-ledger.json is the default
   * frozen list; afterwards freeze-ledger.json is removed and quarantine.json put back.
   */
  withoutQuarantine(body: () => Promise<void>): Promise<void>;
}

/** The demo repository and a scratch directory for the tests of one file (made once). */
export function useBadInputCase(): BadInputCase {
  let repo: TempRepo | undefined;
  let scratch: string | undefined;
  beforeAll(() => {
    repo = makeDemoRepo();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-bad-input-")));
  });
  afterAll(() => {
    repo?.cleanup();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  const ready = () => {
    if (repo === undefined || scratch === undefined) throw new Error("used outside a test");
    return { repo, scratch };
  };
  return {
    get repo() {
      return ready().repo;
    },
    get scratch() {
      return ready().scratch;
    },
    scratchFile(name, content) {
      const path = join(ready().scratch, name);
      writeFileSync(path, content);
      return path;
    },
    async refused(args, cause, { wrong, ...opts } = {}) {
      const { repo } = ready();
      const before = treeState(repo.dir);
      const line = expectOneLineError(await runCliBounded(args, { cwd: repo.dir, ...opts }));
      expect(line).toMatch(cause);
      if (wrong !== undefined) expect(line).not.toMatch(wrong);
      expect(treeState(repo.dir)).toEqual(before);
      return line;
    },
    async withoutQuarantine(body) {
      const { repo, scratch } = ready();
      const aside = join(scratch, "quarantine.json");
      renameSync(repo.path("quarantine.json"), aside);
      try {
        await body();
      } finally {
        rmSync(repo.path("freeze-ledger.json"), { force: true });
        renameSync(aside, repo.path("quarantine.json"));
      }
    },
  };
}
