// action.yml and .pre-commit-hooks.yaml: parsed by a real YAML parser (Debian's PyYAML, what
// pre-commit itself uses; no npm YAML dependency for one test), checked for the inputs and
// outputs the documentation promises, and the action's main step run for real: its script,
// taken from the parsed file, under bash -eo pipefail as GitHub runs it, with GitHub's files
// ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY) and the built freezegate, on the bundled example.
//
// PyYAML missing: skipped with a loud warning locally, a failure under CI=true.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, type TempRepo } from "../helpers/git-repo.js";

const PYTHON = process.env.FREEZEGATE_PYTHON ?? "/usr/bin/python3";

/** The YAML file as JSON, parsed by PyYAML's safe loader; null when PyYAML is unavailable. */
function loadYaml(path: string): { value: unknown } | { problem: string } {
  const r = spawnSync(
    PYTHON,
    ["-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))", path],
    { encoding: "utf8", env: { ...process.env, PYTHONNOUSERSITE: "1" } },
  );
  if (r.error) return { problem: `${PYTHON} cannot run (${r.error.message})` };
  if (r.status !== 0) {
    const last = r.stderr.trim().split("\n").pop() ?? "";
    if (/No module named 'yaml'/.test(last)) return { problem: `${PYTHON} lacks PyYAML (${last})` };
    throw new Error(`${path} is not valid YAML: ${r.stderr}`);
  }
  return { value: JSON.parse(r.stdout) };
}

const probe = loadYaml(join(REPO_ROOT, ".pre-commit-hooks.yaml"));
let warned = false;
function describeYaml(name: string, fn: () => void): void {
  if ("value" in probe) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === "true") {
    describe(name, () => {
      it("needs PyYAML", () => {
        throw new Error(`CI=true and PyYAML is missing: ${probe.problem}`);
      });
    });
    return;
  }
  if (!warned) {
    warned = true;
    console.warn(
      `\n!!! SKIPPING the action.yml / pre-commit checks: ${probe.problem}.\n!!! Install python3-yaml; under CI=true these tests fail instead.\n`,
    );
  }
  describe.skip(name, fn);
}

function parse(path: string): unknown {
  const r = loadYaml(join(REPO_ROOT, path));
  if (!("value" in r)) throw new Error(r.problem);
  return r.value;
}

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "working-directory"?: string;
}

interface ActionFile {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

describeYaml("action.yml", () => {
  const text = readFileSync(join(REPO_ROOT, "action.yml"), "utf8");
  let action: ActionFile;
  beforeAll(() => {
    action = parse("action.yml") as ActionFile;
  });

  it("is a composite action with the documented inputs and outputs", () => {
    expect(action.name).toBe("freezegate");
    expect(action.description.length).toBeGreaterThan(0);
    expect(action.runs.using).toBe("composite");
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        "base",
        "ledger",
        "coverage",
        "formats",
        "fail-on",
        "working-directory",
        "samples",
        "sarif-file",
      ]),
    );
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, `input ${name}`).toBeTruthy();
      expect(input.required ?? false, `input ${name} is optional`).toBe(false);
    }
    expect(action.inputs.formats?.default).toBe("markdown,github,sarif");
    expect(Object.keys(action.outputs)).toEqual(
      expect.arrayContaining(["exit-code", "sarif-file", "html-file"]),
    );
    // The docs list every input and output.
    const docs = readFileSync(join(REPO_ROOT, "docs/github-action.md"), "utf8");
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) {
      expect(docs, `docs/github-action.md mentions ${name}`).toContain(`\`${name}\``);
    }
  });

  it("references only inputs it declares and outputs of steps it has", () => {
    const ids = new Set(action.runs.steps.map((s) => s.id).filter((id) => id !== undefined));
    const inputs = [...text.matchAll(/\$\{\{\s*inputs\.([\w-]+)/g)].map((m) => m[1]);
    const bare = [...text.matchAll(/\bif: inputs\.([\w-]+)/g)].map((m) => m[1]);
    expect(inputs.length).toBeGreaterThan(5);
    for (const name of [...inputs, ...bare]) expect(action.inputs).toHaveProperty(name as string);
    for (const output of Object.values(action.outputs)) {
      const m = /^\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}$/.exec(output.value);
      expect(m, output.value).not.toBeNull();
      expect(ids.has(m?.[1] ?? "")).toBe(true);
    }
    // Composite run steps must name their shell; inputs reach scripts only through env.
    for (const step of action.runs.steps) {
      if (step.run === undefined) continue;
      expect(step.shell, step.name).toBe("bash");
      expect(step.run, step.name).not.toMatch(/\$\{\{/);
    }
  });

  describe("its freezegate step, run as GitHub runs it", () => {
    let repo: TempRepo;
    let scratch: string;
    const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";

    beforeAll(() => {
      scratch = mkdtempSync(join(tmpdir(), "freezegate-action-"));
      repo = makeDemoRepo();
      repo.write(
        "freeze-ledger.json",
        `${JSON.stringify({
          version: 1,
          policy: { max_window_days: 14, min_distinct: 8 },
          freezes: [
            {
              test_id: "tests/test_billing.py::test_proration_rounds_half_up",
              reason: "order-dependent failure in the full suite",
              owner: "finley",
              opened: "2026-11-20",
              expires: "2026-12-01",
              invariant:
                "half-up rounding never charges more than the exact share plus half a cent",
              compensating_property: PROPERTY,
              reused_property: true,
            },
          ],
          properties: [],
        })}\n`,
      );
      const commit = repo.commit("ledger");
      writeFileSync(
        join(scratch, "samples.json"),
        JSON.stringify({ version: 2, commit, properties: { [PROPERTY]: { distinct: 9 } } }),
      );
      const stats = runCli(
        [
          "stats",
          "--base",
          "base",
          "--today",
          "2026-11-25",
          "--history",
          join(scratch, "history.jsonl"),
        ],
        { cwd: repo.dir },
      );
      if (stats.status !== 0) throw new Error(`freezegate stats failed: ${stats.stderr}`);
    });
    afterAll(() => {
      repo?.cleanup();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    function runStep(inputs: Record<string, string>) {
      const step = action.runs.steps.find((s) => s.id === "check");
      if (step?.run === undefined || step.env === undefined) throw new Error("no check step");
      const script = join(scratch, "step.sh");
      writeFileSync(script, step.run);
      const output = join(scratch, `output-${Math.random().toString(36).slice(2)}`);
      const summary = join(scratch, `summary-${Math.random().toString(36).slice(2)}`);
      writeFileSync(output, "");
      writeFileSync(summary, "");
      // What GitHub does with `${{ inputs.x }}` in env: the input's value, or its default.
      const env: Record<string, string> = {};
      for (const [key, expr] of Object.entries(step.env)) {
        const name = /^\$\{\{ inputs\.([\w-]+) \}\}$/.exec(expr)?.[1];
        if (name === undefined) throw new Error(`env ${key} is not an input: ${expr}`);
        env[key] = inputs[name] ?? action.inputs[name]?.default ?? "";
      }
      const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
        cwd: repo.dir,
        encoding: "utf8",
        env: isolatedGitEnv({
          ...env,
          NO_COLOR: "1",
          GITHUB_ACTION_PATH: REPO_ROOT,
          GITHUB_OUTPUT: output,
          GITHUB_STEP_SUMMARY: summary,
        }),
      });
      const outputs = Object.fromEntries(
        readFileSync(output, "utf8")
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      return {
        status: r.status,
        stdout: r.stdout,
        stderr: r.stderr,
        outputs,
        summary: readFileSync(summary, "utf8"),
      };
    }

    it("reads every line of a multi-line args or formats input (a YAML block scalar)", () => {
      // Before: `read` stopped at the first newline, so --fail-on and the sarif format on the
      // second lines were dropped without a word.
      const r = runStep({
        base: "base",
        samples: join(scratch, "samples.json"),
        formats: "markdown\nsarif\n",
        args: "--today 2026-11-25\n--fail-on uncovered\n",
      });
      expect(r.status).toBe(1);
      expect(r.summary).toMatch(/uncovered/);
      expect(r.stdout).toMatch(/FAIL: .*uncovered/);
      expect(r.outputs["sarif-file"]).toBe(join(repo.dir, "freezegate.sarif"));
    });

    it("fails with exit 1 on the shadowed line, with annotations, summary, SARIF and HTML", () => {
      const r = runStep({
        base: "base",
        samples: join(scratch, "samples.json"),
        formats: "markdown, github,sarif,html",
        history: join(scratch, "history.jsonl"),
        args: "--today 2026-11-25",
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(r.outputs["exit-code"]).toBe("1");
      expect(r.stdout).toMatch(/^::error file=src\/billing\/proration\.py,line=13[,:]/m);
      expect(r.summary).toMatch(/shadowed/i);
      expect(r.summary).toContain("test_proration_rounds_half_up");
      const sarifPath = r.outputs["sarif-file"] as string;
      expect(sarifPath).toBe(join(repo.dir, "freezegate.sarif"));
      const sarif = JSON.parse(readFileSync(sarifPath, "utf8"));
      expect(sarif.version).toBe("2.1.0");
      const html = readFileSync(r.outputs["html-file"] as string, "utf8");
      expect(html).toContain('data-verdict="shadowed"');
      expect(html).toContain("latest measured shadow ratio 50.0% on 2026-11-25");
      expect(r.outputs["json-file"]).toBeUndefined();
    });

    it("exit 2 when freezegate cannot run: an error annotation, the reason in the summary, no reports", () => {
      rmSync(join(repo.dir, "freezegate.sarif"), { force: true });
      const r = runStep({ base: "base", ledger: "missing-ledger.json" });
      expect(r.status).toBe(2);
      expect(r.outputs).toEqual({ "exit-code": "2" });
      expect(r.stdout).toMatch(/^::error title=freezegate could not run::.*missing-ledger\.json/m);
      expect(r.summary).toMatch(/freezegate could not run \(exit 2\)/);
      expect(r.summary).toContain("missing-ledger.json");
      expect(existsSync(join(repo.dir, "freezegate.sarif"))).toBe(false);
    });

    it("refuses an unknown format before running anything", () => {
      const r = runStep({ base: "base", formats: "markdown,pdf" });
      expect(r.status).toBe(2);
      expect(r.stdout).toMatch(/unknown format "pdf"/);
      expect(r.outputs).toEqual({});
    });

    it("keeps input values as text: a base naming a command substitution runs nothing", () => {
      const marker = join(scratch, "pwned");
      const r = runStep({ base: `$(touch ${marker})` });
      expect(r.status).toBe(2);
      expect(existsSync(marker)).toBe(false);
    });
  });
});

describeYaml(".pre-commit-hooks.yaml", () => {
  it("offers freezegate ledger check as a hook pre-commit can load", () => {
    const hooks = parse(".pre-commit-hooks.yaml") as Array<Record<string, unknown>>;
    expect(Array.isArray(hooks)).toBe(true);
    const hook = hooks.find((h) => h.id === "freezegate-ledger-check");
    expect(hook).toBeDefined();
    // pre-commit's required keys, and a language it knows.
    for (const key of ["id", "name", "entry", "language"]) expect(hook).toHaveProperty(key);
    expect(hook?.entry).toBe("freezegate ledger check");
    expect(["node", "system"]).toContain(hook?.language);
    expect(hook?.pass_filenames).toBe(false);
    expect(new RegExp(hook?.files as string).test("freeze-ledger.json")).toBe(true);
    expect(new RegExp(hook?.files as string).test("src/freeze-ledger.json.bak")).toBe(false);
  });
});
