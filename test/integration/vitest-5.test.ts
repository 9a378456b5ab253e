// freezegate's Vitest recorder under Vitest 5 for real: the fixture project
// test/fixtures/vitest/basic recorded with Vitest 5.1.2 and @vitest/coverage-istanbul 5.1.2
// must give the data the repository's Vitest (4.1.12) gives, which vitest-recorder.test.ts
// checks against isolated runs, and the lines of oracle-lines.json.
//
// Vitest 5 cannot sit next to the repository's Vitest 4 (its peer dependencies conflict, and
// Vitest finds its coverage provider by the name @vitest/coverage-istanbul), so it is
// installed from the npm registry into a directory of its own, kept for the next run:
// FREEZEGATE_VITEST5_DIR, else one in the system's temporary directory. It runs on
// FREEZEGATE_VITEST5_NODE, else this Node.js, which must be one Vitest 5 supports. When either
// is missing the tests are skipped with a loud warning, and fail under CI=true.

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { versionInRange } from "../../src/core/version-range.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { installFromRepository, recordVitest } from "../helpers/vitest-recording.js";

const VERSION = "5.1.2";
const INSTALL =
  process.env.FREEZEGATE_VITEST5_DIR ?? join(tmpdir(), `freezegate-vitest-${VERSION}`);
const NODE = process.env.FREEZEGATE_VITEST5_NODE ?? process.execPath;
const FIXTURE = join(REPO_ROOT, "test/fixtures/vitest/basic");

function installedVersion(name: string): string | null {
  const file = join(INSTALL, "node_modules", name, "package.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")).version as string) : null;
}

/** Installs Vitest 5 once (into a directory next to INSTALL, then moved); "" or the problem. */
function install(): string {
  if (
    installedVersion("vitest") === VERSION &&
    installedVersion("@vitest/coverage-istanbul") === VERSION
  )
    return "";
  const staging = `${INSTALL}.${process.pid}`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, "package.json"), '{ "private": true }\n');
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      `vitest@${VERSION}`,
      `@vitest/coverage-istanbul@${VERSION}`,
    ],
    { cwd: staging, encoding: "utf8", timeout: 300_000 },
  );
  if (npm.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const last = `${npm.stderr ?? ""}${npm.error?.message ?? ""}`.trim().split("\n").pop();
    return `npm could not install vitest@${VERSION} into ${staging} (${last})`;
  }
  rmSync(INSTALL, { recursive: true, force: true });
  renameSync(staging, INSTALL);
  return "";
}

function probe(): string {
  const problem = install();
  if (problem) return problem;
  const engines = JSON.parse(
    readFileSync(join(INSTALL, "node_modules/vitest/package.json"), "utf8"),
  ).engines?.node as string;
  const node = spawnSync(NODE, ["-p", "process.versions.node"], { encoding: "utf8" });
  const version = node.stdout?.trim() ?? "";
  if (node.status !== 0 || versionInRange(version, engines) !== true)
    return `${NODE} is Node.js ${version || "(did not run)"}, and Vitest ${VERSION} needs ${engines}: set FREEZEGATE_VITEST5_NODE`;
  return "";
}

const problem = probe();

const describeVitest5: typeof describe = !problem
  ? describe
  : process.env.CI === "true"
    ? (((name: string) =>
        describe(name, () => {
          it(`needs Vitest ${VERSION}`, () => {
            throw new Error(`CI=true and Vitest ${VERSION} cannot run: ${problem}`);
          });
        })) as unknown as typeof describe)
    : (((name: string, fn: () => void) => {
        console.warn(
          `\n!!! SKIPPING the Vitest ${VERSION} tests: ${problem}; under CI=true they fail instead.\n`,
        );
        describe.skip(name, fn);
      }) as unknown as typeof describe);

const work = mkdtempSync(join(tmpdir(), "fg-vitest5-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Test {
  id: string;
  taskId: string;
  file: string;
}
interface Section {
  source: string;
  hash: string | null;
  outside: Record<string, number[]>;
  tests: Record<string, number[][]>;
}
interface Data {
  header: { vitest: string; unmappedStatements: number; ranFiles: string[]; tests: Test[] };
  sources: Section[];
}

function read(path: string): Data {
  const [header, ...sources] = readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  return { header, sources };
}

/** The data with what differs between two runs of one project left out. */
function comparable(data: Data): unknown {
  const { createdAt, runId, root, vitest, ...header } = data.header as Data["header"] &
    Record<string, unknown>;
  return {
    // Vitest 5 hashes the file into a task id differently: the same tests, other ids.
    header: { ...header, tests: data.header.tests.map(({ taskId, ...t }) => t) },
    // istanbul's hash is of the instrumented code, which each version writes its own way.
    sources: data.sources.map(({ hash, ...s }) => s),
  };
}

/** Every line each test ran, its file's lines outside tests included: [id, source -> lines]. */
function linesByTest(data: Data): [string, Record<string, number[]>][] {
  return data.header.tests.map((t, i) => {
    const file = String(data.header.ranFiles.indexOf(t.file));
    const lines: Record<string, number[]> = {};
    for (const s of data.sources) {
      const set = new Set([...(s.tests[i] ?? []).flat(), ...(s.outside[file] ?? [])]);
      if (set.size) lines[s.source] = [...set].sort((a, b) => a - b);
    }
    return [t.id, lines];
  });
}

/** The fixture's project (sources and tests), with its own node_modules of Vitest 5. */
function project(): string {
  const dir = join(work, "basic");
  for (const part of ["src", "tests"])
    cpSync(join(FIXTURE, part), join(dir, part), { recursive: true });
  // The same configuration for a plain coverage run and a recorded one, as a project has it
  // when only some runs record.
  writeFileSync(
    join(dir, "vitest.config.mjs"),
    `import { defineConfig } from "vitest/config";
const record = process.env.FREEZEGATE_VITEST_DATA !== undefined;
export default defineConfig({
  test: {
    include: ["tests/**/*.spec.ts"],
    ...(record ? { runner: "freezegate/vitest/runner", reporters: ["default", "freezegate/vitest/reporter"] } : {}),
    coverage: { enabled: true, provider: "istanbul", reporter: [], include: ["src/**"] },
  },
});
`,
  );
  installFromRepository(dir, join(INSTALL, "node_modules"));
  return dir;
}

function vitest5(dir: string, data?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0", CI: "1" };
  delete env.FREEZEGATE_VITEST_DATA;
  if (data) env.FREEZEGATE_VITEST_DATA = data;
  const res = spawnSync(
    NODE,
    [join(INSTALL, "node_modules/vitest/vitest.mjs"), "run", "--root", dir],
    {
      cwd: dir,
      encoding: "utf8",
      env,
    },
  );
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

describeVitest5(`Vitest recorder on Vitest ${VERSION}`, () => {
  it("records the lines, phases and results Vitest 4 records, in original source lines", () => {
    const dir = project();
    // A plain coverage run first: Vitest 5 caches transformed modules on disk, and the
    // recorded run must not reuse ones whose coverage data has no source map.
    const plain = vitest5(dir);
    expect(plain.status, plain.output).toBe(0);
    const recorded = vitest5(dir, join(work, "v5.jsonl"));
    expect(recorded.status, recorded.output).toBe(0);
    const v4 = recordVitest(FIXTURE, join(work, "v4.jsonl"));
    expect(v4.status, v4.output).toBe(0);

    const data = read(join(work, "v5.jsonl"));
    expect(data.header.vitest).toBe(VERSION);
    expect(data.header.unmappedStatements).toBe(0);
    expect(comparable(data)).toEqual(comparable(read(v4.data)));

    // Each test's lines are those it ran alone (oracle-lines.json, in the run's order).
    const oracle = JSON.parse(readFileSync(join(FIXTURE, "oracle-lines.json"), "utf8")) as {
      tests: Record<string, { id: string; lines: Record<string, number[]> }>;
    };
    expect(linesByTest(data)).toEqual(Object.values(oracle.tests).map((t) => [t.id, t.lines]));
  });
});
