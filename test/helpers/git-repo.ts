// Throw-away git repositories for tests. Every git call here runs with the machine's global and
// system config switched off and the caller's GIT_* variables (GIT_DIR from a hook, ...)
// removed, so results never depend on the developer's ~/.gitconfig.

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { devNull, tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempRepo {
  /** Absolute path of the work tree (symlinks resolved, as `git rev-parse` reports it). */
  dir: string;
  /** Runs git synchronously in dir, returns stdout; throws on failure. */
  git(...args: string[]): string;
  /** Creates parent directories. */
  write(path: string, content: string | Buffer): void;
  remove(path: string): void;
  /** `git add -A && git commit`; returns the new sha. */
  commit(message: string): string;
  cleanup(): void;
  /** Absolute path of a file in the work tree. */
  path(rel: string): string;
  /** Creates a symbolic link `path` pointing at `target` (parent directories created). */
  symlink(target: string, path: string): void;
  /** chmod a work-tree file (mode-change tests). */
  chmod(path: string, mode: number): void;
}

/**
 * The environment for test-side git: no global/system config, no inherited GIT_* variables,
 * C locale (stable messages). `extra` is layered on top (e.g. a hostile GIT_CONFIG_GLOBAL).
 */
export function isolatedGitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_GLOBAL: devNull,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    ...extra,
  };
}

/** Run git in `cwd` with the isolated environment; stdout as text, throws with stderr. */
export function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync("git", args, {
      cwd,
      env: isolatedGitEnv(env),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stderr?: string; status?: number };
    throw new Error(`git ${args.join(" ")} failed (exit ${e.status}): ${e.stderr ?? error}`);
  }
}

export function makeTempRepo(opts: { branch?: string } = {}): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-repo-")));
  const git = (...args: string[]) => runGit(dir, args);
  git("init", "-q", "-b", opts.branch ?? "main");
  git("config", "user.name", "Freezegate Test");
  git("config", "user.email", "test@freezegate.invalid");
  git("config", "commit.gpgsign", "false");
  const abs = (rel: string) => join(dir, rel);
  return {
    dir,
    git,
    path: abs,
    write(path, content) {
      mkdirSync(dirname(abs(path)), { recursive: true });
      writeFileSync(abs(path), content);
    },
    remove(path) {
      rmSync(abs(path), { recursive: true, force: true });
    },
    symlink(target, path) {
      mkdirSync(dirname(abs(path)), { recursive: true });
      symlinkSync(target, abs(path));
    },
    chmod(path, mode) {
      chmodSync(abs(path), mode);
    },
    commit(message) {
      git("add", "-A");
      git("commit", "-q", "-m", message);
      return git("rev-parse", "HEAD").trim();
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
