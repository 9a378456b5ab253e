// Test-side access to the real Python toolchain (coverage.py, pytest, pytest-cov) that
// produces the data freezegate reads. Tests that need it wrap themselves in
// `describePython`: skipped with a loud warning locally when Python is missing, failed under
// CI=true so that a broken CI image can never turn into a green run.

import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";

export interface PythonEnv {
  exe: string;
  coverageVersion: string;
  pytestVersion: string;
}

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/py");

// Debian's interpreter, not the first python3 on PATH (a pyenv build without the packages).
const PYTHON_EXE = process.env.FREEZEGATE_PYTHON ?? "/usr/bin/python3";

/**
 * The environment every Python child gets: the caller's, minus settings that would let the
 * user's own configuration change what pytest or coverage.py record.
 */
function pythonChildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (
      key.startsWith("COVERAGE_") ||
      key.startsWith("COV_CORE_") ||
      key.startsWith("PYTEST_") ||
      key === "PYTHONPATH" ||
      key === "PYTHONSTARTUP" ||
      key === "PYTHONHOME" ||
      key === "PYTHONWARNINGS"
    ) {
      delete env[key];
    }
  }
  env.PYTHONDONTWRITEBYTECODE = "1";
  env.PYTHONHASHSEED = "0";
  env.PYTHONNOUSERSITE = "1";
  env.PYTHONIOENCODING = "utf-8";
  return { ...env, ...extra };
}

const PROBE = [
  "import json, coverage, pytest, pytest_cov, hypothesis",
  "print(json.dumps({'coverage': coverage.__version__, 'pytest': pytest.__version__}))",
].join("\n");

function probePython(): { env: PythonEnv | null; problem: string } {
  const probe = spawnSync(PYTHON_EXE, ["-c", PROBE], {
    env: pythonChildEnv(),
    encoding: "utf8",
    timeout: 60_000,
  });
  if (probe.error) {
    return { env: null, problem: `${PYTHON_EXE} cannot run (${probe.error.message})` };
  }
  if (probe.status !== 0) {
    const last = probe.stderr.trim().split("\n").pop() ?? "";
    return {
      env: null,
      problem: `${PYTHON_EXE} lacks coverage/pytest/pytest-cov/hypothesis (${last})`,
    };
  }
  try {
    const versions = JSON.parse(probe.stdout) as { coverage: string; pytest: string };
    return {
      env: { exe: PYTHON_EXE, coverageVersion: versions.coverage, pytestVersion: versions.pytest },
      problem: "",
    };
  } catch {
    return { env: null, problem: `${PYTHON_EXE} printed unexpected output: ${probe.stdout}` };
  }
}

const probed = probePython();

/** The Python toolchain, or null when it is missing (see {@link pythonProblem}). */
export const pythonEnv: PythonEnv | null = probed.env;

/** Why {@link pythonEnv} is null ("" when it is not). */
export const pythonProblem: string = probed.problem;

function failingDescribe(reason: string): typeof describe {
  const fail = (name: unknown) => {
    describe(String(name), () => {
      it("needs the Python toolchain", () => {
        throw new Error(`CI=true and the Python toolchain is missing: ${reason}`);
      });
    });
  };
  return fail as unknown as typeof describe;
}

let warned = false;
function skippingDescribe(reason: string): typeof describe {
  const skip = (name: unknown, ...rest: unknown[]) => {
    if (!warned) {
      warned = true;
      console.warn(
        `\n!!! SKIPPING Python-backed tests: ${reason}.\n!!! Set FREEZEGATE_PYTHON or install python3-coverage, python3-pytest, python3-pytest-cov and python3-hypothesis; under CI=true these tests fail instead.\n`,
      );
    }
    (describe.skip as (...args: unknown[]) => void)(name, ...rest);
  };
  return skip as unknown as typeof describe;
}

/**
 * `describe` when Python is usable; otherwise a skipped suite with a loud warning, or under
 * CI=true a suite whose single test fails with the reason. Only the call form
 * `describePython(name, fn)` is supported by the fallbacks.
 */
export const describePython: typeof describe = pythonEnv
  ? describe
  : process.env.CI === "true"
    ? failingDescribe(pythonProblem)
    : skippingDescribe(pythonProblem);

function requirePython(): PythonEnv {
  if (!pythonEnv) throw new Error(`the Python toolchain is missing: ${pythonProblem}`);
  return pythonEnv;
}

/** Runs the Python interpreter with an isolated environment; never throws on a bad exit. */
export function runPython(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number },
): { status: number; stdout: string; stderr: string } {
  const python = requirePython();
  const result = spawnSync(python.exe, args, {
    cwd: opts.cwd,
    env: pythonChildEnv(opts.env),
    encoding: "utf8",
    input: opts.input,
    maxBuffer: 256 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 170_000,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const created: string[] = [];
function removeTempDirs(): void {
  if (process.env.FREEZEGATE_KEEP_TMP === "1") return;
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
// Registered while the importing test file is collected, so it runs after that file; the
// exit hook catches whatever a crashed run leaves (Vitest may end workers without it).
afterAll(removeTempDirs);
process.on("exit", removeTempDirs);

/** A fresh temporary directory, removed after the test file (unless FREEZEGATE_KEEP_TMP=1). */
export function makeTempDir(label: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `freezegate-${label}-`)));
  created.push(dir);
  return dir;
}

/** Copies test/fixtures/py/<name> into a fresh temporary directory and returns its path. */
export function copyFixtureProject(name: string): string {
  const source = join(FIXTURES, name);
  const target = makeTempDir(name.replace(/[^A-Za-z0-9_-]/g, "_"));
  cpSync(source, target, { recursive: true });
  return target;
}

/**
 * Runs `pytest --cov --cov-context=test` in `projectDir` (the terminal report is switched
 * off; pass `--cov-report=...` to add one). Throws with pytest's output when it fails.
 */
export function runPytestCov(
  projectDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): void {
  const args = [
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--cov",
    "--cov-context=test",
    "--cov-report=",
    ...extraArgs,
  ];
  const result = runPython(args, { cwd: projectDir, env });
  if (result.status !== 0) {
    throw new Error(
      `pytest ${args.slice(2).join(" ")} failed in ${projectDir} (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}
