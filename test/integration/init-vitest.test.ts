// `freezegate init vitest`: the built CLI on temporary projects with Vitest,
// @vitest/coverage-istanbul and freezegate in node_modules (links to this checkout's). Every
// edited configuration is read again with TypeScript's own parser: it must parse, carry the
// runner, the reporter and istanbul coverage, and keep every other option as it was. At the
// end, a fixture project is wired and run with real Vitest, which then records per-test
// coverage.

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { ManualWiringNeeded, wireVitestConfig } from "../../src/runners/vitest/config-wiring.js";
import { expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const RUNNER = "freezegate/vitest/runner";
const REPORTER = "freezegate/vitest/reporter";
const NODE_MODULES = join(REPO_ROOT, "node_modules");
const VITEST_VERSION = (
  JSON.parse(readFileSync(join(NODE_MODULES, "vitest/package.json"), "utf8")) as { version: string }
).version;

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

interface Installed {
  /** @vitest/coverage-istanbul's version; null: not installed; undefined: the real one. */
  istanbul?: string | null;
  freezegate?: boolean;
  /** Every package of this checkout, as a real run needs; otherwise only what init reads. */
  all?: boolean;
}

function project(files: Record<string, string>, installed: Installed = {}): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  const names = installed.all
    ? readdirSync(NODE_MODULES).filter((name) => !name.startsWith(".") && name !== "@vitest")
    : ["vitest"];
  for (const name of names) repo.symlink(join(NODE_MODULES, name), `node_modules/${name}`);
  mkdirSync(repo.path("node_modules/@vitest"), { recursive: true });
  const scoped = installed.all ? readdirSync(join(NODE_MODULES, "@vitest")) : ["coverage-istanbul"];
  for (const name of scoped) {
    if (name === "coverage-istanbul" && installed.istanbul !== undefined) continue;
    repo.symlink(join(NODE_MODULES, "@vitest", name), `node_modules/@vitest/${name}`);
  }
  if (typeof installed.istanbul === "string") {
    repo.write(
      "node_modules/@vitest/coverage-istanbul/package.json",
      JSON.stringify({ name: "@vitest/coverage-istanbul", version: installed.istanbul }),
    );
  }
  if (installed.freezegate !== false) repo.symlink(REPO_ROOT, "node_modules/freezegate");
  return repo;
}

function init(repo: TempRepo, ...args: string[]) {
  return runCli(["init", "vitest", ...args], { cwd: repo.dir });
}

/** Every file of the project but node_modules and .git, with contents. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      if (entry.isDirectory()) walk(path);
      else out[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return out;
}

// ---------------------------------------------------------------------------------------------
// The configuration as TypeScript reads it: an independent check of every edit.

type Options = Record<string, unknown>;

function literal(node: ts.Expression): unknown {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isArrayLiteralExpression(node)) return node.elements.map(literal);
  if (ts.isObjectLiteralExpression(node)) {
    const out: Options = {};
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p)) throw new Error(`not a plain property: ${p.getText()}`);
      const name = p.name;
      const key = ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText();
      out[key] = literal(p.initializer);
    }
    return out;
  }
  return `<${node.getText()}>`;
}

/** The exported configuration object's literal values, after TypeScript parsed the text. */
function configOptions(text: string, name: string): Options {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const errors = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  expect(
    errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    text,
  ).toEqual([]);
  let exported: ts.Expression | undefined;
  for (const statement of source.statements) {
    if (ts.isExportAssignment(statement)) exported = statement.expression;
    if (
      ts.isExpressionStatement(statement) &&
      ts.isBinaryExpression(statement.expression) &&
      statement.expression.left.getText() === "module.exports"
    ) {
      exported = statement.expression.right;
    }
  }
  if (exported && ts.isCallExpression(exported)) exported = exported.arguments[0];
  if (!exported || !ts.isObjectLiteralExpression(exported)) throw new Error("no config object");
  return literal(exported) as Options;
}

/** `after` is `before` with the recorder wired in, and nothing else changed. */
function expectWired(before: Options, after: Options): void {
  const { test: oldTest = {}, ...oldRest } = before as { test?: Options };
  const { test: newTest, ...newRest } = after as { test: Options };
  expect(newRest).toEqual(oldRest);
  const {
    runner: oldRunner,
    reporters: oldReporters,
    coverage: oldCoverage = {},
    ...oldOthers
  } = oldTest as Options & { coverage?: Options };
  const { runner, reporters, coverage, ...others } = newTest as Options & {
    reporters: unknown[];
    coverage: Options;
  };
  expect(others).toEqual(oldOthers);
  if (oldRunner === undefined) expect(runner).toBe(RUNNER);
  else expect(runner).toBe(oldRunner);
  const oldList =
    oldReporters === undefined || (Array.isArray(oldReporters) && oldReporters.length === 0)
      ? ["default"]
      : Array.isArray(oldReporters)
        ? oldReporters
        : [oldReporters];
  expect(reporters).toEqual(
    oldList.some(
      (r) =>
        (Array.isArray(r) ? r[0] : r) === REPORTER ||
        String(r).endsWith("integrations/vitest/reporter.mjs"),
    )
      ? oldList
      : [...oldList, REPORTER],
  );
  expect(coverage).toEqual({ ...oldCoverage, enabled: true, provider: "istanbul" });
}

// ---------------------------------------------------------------------------------------------

interface Case {
  name: string;
  file: string;
  before: string;
  after: string;
  /** The lines the output shows ("file:N: text"). */
  shown: string[];
}

const UNWIRED_CONFIG = readFileSync(
  join(REPO_ROOT, "test/fixtures/vitest/unwired/vitest.config.ts"),
  "utf8",
);

const CASES: Case[] = [
  {
    name: "defineConfig({ test: {...} }) in TypeScript",
    file: "vitest.config.ts",
    before:
      'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({\n  test: {\n    include: ["tests/**/*.spec.ts"],\n    environment: "node",\n  },\n});\n',
    after:
      'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({\n  test: {\n    include: ["tests/**/*.spec.ts"],\n    environment: "node",\n    runner: "freezegate/vitest/runner",\n    reporters: ["default", "freezegate/vitest/reporter"],\n    coverage: { enabled: true, provider: "istanbul" },\n  },\n});\n',
    shown: [
      '  vitest.config.ts:7:     runner: "freezegate/vitest/runner",',
      '  vitest.config.ts:8:     reporters: ["default", "freezegate/vitest/reporter"],',
      '  vitest.config.ts:9:     coverage: { enabled: true, provider: "istanbul" },',
    ],
  },
  {
    name: "a configuration without a test key",
    file: "vitest.config.mjs",
    before:
      'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({\n  resolve: { alias: { "@": "/src" } },\n});\n',
    after:
      'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({\n  resolve: { alias: { "@": "/src" } },\n  test: {\n    runner: "freezegate/vitest/runner",\n    reporters: ["default", "freezegate/vitest/reporter"],\n    coverage: { enabled: true, provider: "istanbul" },\n  },\n});\n',
    shown: [
      "  vitest.config.mjs:5:   test: {",
      '  vitest.config.mjs:6:     runner: "freezegate/vitest/runner",',
      "  vitest.config.mjs:9:   },",
    ],
  },
  {
    name: "vite.config.ts with test, in its own style (tabs, single quotes, no trailing commas)",
    file: "vite.config.ts",
    before:
      "/// <reference types=\"vitest/config\" />\nimport { defineConfig } from 'vite'\n\nexport default defineConfig({\n\tplugins: [],\n\ttest: {\n\t\treporters: ['verbose'],\n\t\tcoverage: {\n\t\t\tprovider: 'istanbul',\n\t\t\treporter: ['text']\n\t\t}\n\t}\n})\n",
    after:
      "/// <reference types=\"vitest/config\" />\nimport { defineConfig } from 'vite'\n\nexport default defineConfig({\n\tplugins: [],\n\ttest: {\n\t\treporters: ['verbose', 'freezegate/vitest/reporter'],\n\t\tcoverage: {\n\t\t\tprovider: 'istanbul',\n\t\t\treporter: ['text'],\n\t\t\tenabled: true\n\t\t},\n\t\trunner: 'freezegate/vitest/runner'\n\t}\n})\n",
    shown: [
      "  vite.config.ts:7: \t\treporters: ['verbose', 'freezegate/vitest/reporter'],",
      "  vite.config.ts:10: \t\t\treporter: ['text'],",
      "  vite.config.ts:11: \t\t\tenabled: true",
      "  vite.config.ts:12: \t\t},",
      "  vite.config.ts:13: \t\trunner: 'freezegate/vitest/runner'",
    ],
  },
  {
    name: "vite.config.ts without test: Vitest's reference to its types comes first",
    file: "vite.config.ts",
    before:
      "import { defineConfig } from 'vite'\n\nexport default defineConfig({\n  server: { port: 3000 },\n})\n",
    after:
      "/// <reference types=\"vitest/config\" />\nimport { defineConfig } from 'vite'\n\nexport default defineConfig({\n  server: { port: 3000 },\n  test: {\n    runner: 'freezegate/vitest/runner',\n    reporters: ['default', 'freezegate/vitest/reporter'],\n    coverage: { enabled: true, provider: 'istanbul' },\n  },\n})\n",
    shown: [
      '  vite.config.ts:1: /// <reference types="vitest/config" />',
      "  vite.config.ts:6:   test: {",
    ],
  },
  {
    name: "comments, strings, template literals and regular expressions with braces",
    file: "vitest.config.ts",
    before: UNWIRED_CONFIG,
    after: UNWIRED_CONFIG.replace(
      "      reporter: [] /* no report files: } */,\n    },\n",
      '      reporter: [] /* no report files: } */,\n      enabled: true,\n      provider: "istanbul",\n    },\n    runner: "freezegate/vitest/runner",\n    reporters: ["default", "freezegate/vitest/reporter"],\n',
    ),
    shown: [
      "  vitest.config.ts:17:       enabled: true,",
      '  vitest.config.ts:18:       provider: "istanbul",',
      '  vitest.config.ts:20:     runner: "freezegate/vitest/runner",',
    ],
  },
  {
    name: "a one-line export default {...} with CRLF line ends",
    file: "vitest.config.js",
    before: "// one line\r\nexport default { test: { globals: true } };\r\n",
    after:
      '// one line\r\nexport default { test: { globals: true, runner: "freezegate/vitest/runner", reporters: ["default", "freezegate/vitest/reporter"], coverage: { enabled: true, provider: "istanbul" } } };\r\n',
    shown: [
      '  vitest.config.js:2: export default { test: { globals: true, runner: "freezegate/vitest/runner", reporters: ["default", "freezegate/vitest/reporter"], coverage: { enabled: true, provider: "istanbul" } } };',
    ],
  },
  {
    name: "module.exports, an empty test and an empty reporters list (Vitest's default kept)",
    file: "vitest.config.cjs",
    before: "module.exports = {\n  test: {\n    reporters: [], // quiet\n  },\n  server: {},\n};\n",
    after:
      'module.exports = {\n  test: {\n    reporters: ["default", "freezegate/vitest/reporter"], // quiet\n    runner: "freezegate/vitest/runner",\n    coverage: { enabled: true, provider: "istanbul" },\n  },\n  server: {},\n};\n',
    shown: [
      '  vitest.config.cjs:3:     reporters: ["default", "freezegate/vitest/reporter"], // quiet',
      '  vitest.config.cjs:4:     runner: "freezegate/vitest/runner",',
    ],
  },
];

describe("freezegate init vitest", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const repo = project({ [c.file]: c.before });
      const before = snapshot(repo.dir);
      const dry = init(repo, "--dry-run");
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/^would add /);
      expect(dry.stdout).toContain("(dry run: nothing was written)");
      expect(snapshot(repo.dir)).toEqual(before);

      const result = init(repo);
      expect(result.status, result.stderr).toBe(0);
      const lines = result.stdout.split("\n");
      expect(lines[0]).toBe(
        `added the runner, the reporter and coverage with the istanbul provider to the test options in ${c.file}:`,
      );
      for (const shown of c.shown) expect(lines).toContain(shown);
      expect(readFileSync(repo.path(c.file), "utf8")).toBe(c.after);
      expectWired(configOptions(c.before, c.file), configOptions(c.after, c.file));
      // Only the one file changed, and no temporary file was left next to it.
      const after = snapshot(repo.dir);
      expect(Object.keys(after).filter((p) => after[p] !== before[p])).toEqual([c.file]);

      const again = init(repo);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout.split("\n")[0]).toBe(
        `${c.file} already records with freezegate (test.runner, its reporter, istanbul coverage); nothing changed`,
      );
      expect(snapshot(repo.dir)).toEqual(after);
    });
  }

  it("takes a configuration wired by hand with paths into the package as wired", () => {
    const text =
      'export default {\n  test: {\n    runner: "node_modules/freezegate/integrations/vitest/runner.mjs",\n    reporters: [\n      "default",\n      ["node_modules/freezegate/integrations/vitest/reporter.mjs", { mode: "run" }],\n    ],\n    coverage: { enabled: true, provider: "istanbul" },\n  },\n};\n';
    const repo = project({ "vitest.config.mts": text });
    const result = init(repo);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^vitest\.config\.mts already records with freezegate/);
    expect(readFileSync(repo.path("vitest.config.mts"), "utf8")).toBe(text);
  });

  it("creates vitest.config.mjs where Vitest finds no configuration", () => {
    const repo = project({ "src/a.ts": "export const a = 1;\n" });
    const result = init(repo);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe(
      "created vitest.config.mjs (Vitest found no configuration here):",
    );
    const text = readFileSync(repo.path("vitest.config.mjs"), "utf8");
    expectWired({}, configOptions(text, "vitest.config.mjs"));
    expect(init(repo).stdout).toMatch(/^vitest\.config\.mjs already records/);
  });

  it("edits the file Vitest would use: vitest.config before vite.config, parents, --config", () => {
    const plain = "export default defineConfig({\n  test: {},\n});\n";
    const repo = project({
      "vite.config.ts": plain,
      "vitest.config.js": plain,
      "vitest.unit.config.ts": plain,
      "packages/app/src/a.ts": "",
    });
    const fromSub = runCli(["init", "vitest", "--dry-run", "-C", "packages/app"], {
      cwd: repo.dir,
    });
    expect(fromSub.status, fromSub.stderr).toBe(0);
    expect(fromSub.stdout).toMatch(/^would add .* in vitest\.config\.js:$/m);
    const named = init(repo, "--config", "vitest.unit.config.ts");
    expect(named.status, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/^added .* in vitest\.unit\.config\.ts:$/m);
    expect(readFileSync(repo.path("vitest.config.js"), "utf8")).toBe(plain);
    expect(readFileSync(repo.path("vite.config.ts"), "utf8")).toBe(plain);
    expect(readFileSync(repo.path("vitest.unit.config.ts"), "utf8")).toContain(RUNNER);
    expect(
      expectRefusal(init(repo, "--config", "nope.config.ts"), "vitest-config-not-found"),
    ).toMatch(/^--config nope\.config\.ts: /);
  });

  it("says what each project of test.projects needs", () => {
    const repo = project({
      "vitest.config.ts":
        'export default defineConfig({\n  test: {\n    projects: [\n      "packages/*",\n      { extends: true, test: { name: "unit" } },\n      { test: { name: "browser", include: ["b/**"] } },\n    ],\n  },\n});\n',
    });
    const result = init(repo);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("vitest.config.ts has test.projects:"));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      `  packages/*: add runner: "${RUNNER}" to the test options in the configuration file of each project it names`,
      '  inline project "unit": takes the runner from vitest.config.ts (extends: true)',
      `  inline project "browser": add runner: "${RUNNER}" to its test options, or set extends: true`,
    ]);
  });

  it.each([
    [
      "a function",
      "export default defineConfig(({ mode }) => ({\n  test: { globals: mode === 'ci' },\n}));\n",
      "its default export is a function (defineConfig(() => ...)), not an object literal",
    ],
    [
      "a variable",
      "const config = defineConfig({ test: {} });\nexport default config;\n",
      "its default export is the variable config, not an object literal",
    ],
    [
      "mergeConfig",
      "export default mergeConfig(viteConfig, defineConfig({ test: {} }));\n",
      "its default export is mergeConfig(...), not an object literal",
    ],
    [
      "a spread",
      "export default defineConfig({ test: { ...shared, globals: true } });\n",
      "test has a spread (...) that could set the same options",
    ],
    [
      "test given as a variable",
      "const test = {};\nexport default defineConfig({ test });\n",
      "test is not written as `test: value`",
    ],
    [
      "an unclosed string",
      'export default defineConfig({ test: { include: ["a] } });\n',
      "line 1: a string is not closed on its line",
    ],
  ])("refuses %s, printing the lines to add by hand, writing nothing", (_, text, why) => {
    const repo = project({ "vitest.config.ts": text });
    const before = snapshot(repo.dir);
    const result = init(repo);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe(
      [
        "Add these options to vitest.config.ts by hand, merged with the test, reporters and coverage options it has:",
        "  test: {",
        `    runner: "${RUNNER}",`,
        `    reporters: ["default", "${REPORTER}"],`,
        '    coverage: { enabled: true, provider: "istanbul" },',
        "  },",
        "",
      ].join("\n"),
    );
    expect(result.stderr).toBe(
      `freezegate: error[init-cannot-edit]: cannot edit vitest.config.ts safely: ${why}; nothing was written (fix: add the lines printed above to the test options of vitest.config.ts by hand)\n`,
    );
    expect(snapshot(repo.dir)).toEqual(before);
  });

  it.each([
    [
      "the v8 provider",
      'export default defineConfig({ test: { coverage: { provider: "v8" } } });\n',
      {},
      "vitest-config-unsupported",
      `vitest.config.ts sets test.coverage.provider to "v8": the v8 provider keeps no counters inside the test process, so freezegate cannot record which test ran which line (fix: set test.coverage.provider to "istanbul"`,
    ],
    [
      "another runner",
      'export default defineConfig({ test: { runner: "./runner.ts" } });\n',
      {},
      "vitest-config-unsupported",
      'vitest.config.ts sets test.runner to "./runner.ts": freezegate records per-test coverage with its own runner (which extends Vitest\'s), and Vitest takes one runner (fix: remove test.runner, then run freezegate init vitest again)',
    ],
    [
      "coverage turned off",
      "export default defineConfig({ test: { coverage: { enabled: false } } });\n",
      {},
      "vitest-config-unsupported",
      "vitest.config.ts sets test.coverage.enabled to false: freezegate records per-test coverage only in runs with coverage on",
    ],
    [
      "@vitest/coverage-istanbul at another version than Vitest's",
      "export default defineConfig({ test: {} });\n",
      { istanbul: "4.0.18" },
      "vitest-package-version",
      `node_modules/@vitest/coverage-istanbul is version 4.0.18: Vitest is ${VITEST_VERSION} and needs its coverage provider at exactly its own version (fix: npm i -D @vitest/coverage-istanbul@${VITEST_VERSION}, then run freezegate init vitest again)`,
    ],
    [
      "no @vitest/coverage-istanbul",
      "export default defineConfig({ test: {} });\n",
      { istanbul: null },
      "vitest-package-missing",
      `@vitest/coverage-istanbul is not installed in this project: freezegate records per-test coverage from istanbul's counters (fix: npm i -D @vitest/coverage-istanbul@${VITEST_VERSION}, then run freezegate init vitest again)`,
    ],
    [
      "freezegate not installed in the project",
      "export default defineConfig({ test: {} });\n",
      { freezegate: false },
      "vitest-package-missing",
      "freezegate is not installed in this project: Vitest loads its runner (freezegate/vitest/runner) from node_modules (fix: npm i -D freezegate, then run freezegate init vitest again)",
    ],
  ])("refuses %s in one line, writing nothing", (_, text, installed, code, message) => {
    const repo = project({ "vitest.config.ts": text }, installed as Installed);
    const before = snapshot(repo.dir);
    expect(expectRefusal(init(repo), code)).toContain(message);
    expect(snapshot(repo.dir)).toEqual(before);
  });

  // Debian's Node.js 20 on this project's machines: older than freezegate supports.
  const OLD_NODE = "/usr/bin/node";
  const oldNode = existsSync(OLD_NODE)
    ? spawnSync(OLD_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
    : "";
  it.skipIf(!/^(1\d|20|21|22\.(\d|1[0-2]))\./.test(oldNode))(
    `refuses a Node.js older than freezegate supports (${OLD_NODE} ${oldNode || "missing"})`,
    () => {
      const repo = project({ "vitest.config.ts": "export default { test: {} };\n" });
      const result = spawnSync(
        OLD_NODE,
        [join(REPO_ROOT, "dist/bin/freezegate.cjs"), "init", "vitest"],
        {
          cwd: repo.dir,
          encoding: "utf8",
          env: isolatedGitEnv({ NO_COLOR: "1" }),
        },
      );
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(
        `freezegate: error[vitest-node-unsupported]: this Node.js (v${oldNode}) is not one freezegate supports (^22.13.0 || >=24.0.0) (fix: run Vitest and freezegate on a Node.js in ^22.13.0 || >=24.0.0)\n`,
      );
    },
  );

  it("needs exactly pytest or vitest, and --config only with vitest", () => {
    const repo = project({});
    expect(expectRefusal(runCli(["init"], { cwd: repo.dir }), "init-unknown-runner")).toMatch(
      /pytest or vitest/,
    );
    expect(
      expectRefusal(runCli(["init", "jest"], { cwd: repo.dir }), "init-unknown-runner"),
    ).toMatch(/not "jest"/);
    expect(
      expectRefusal(
        runCli(["init", "pytest", "--config", "x.ini"], { cwd: repo.dir }),
        "init-config-not-for-pytest",
      ),
    ).toMatch(/^--config is for init vitest/);
  });
});

describe("the edit function", () => {
  const wired = (text: string, name = "vitest.config.ts") => {
    const result = wireVitestConfig(text, name, name);
    if (result.kind !== "edited") throw new Error("not edited");
    expectWired(configOptions(text, name), configOptions(result.text, name));
    return result.text;
  };

  it("adds after a comment that ends the last line, with the comma before the comment", () => {
    expect(wired("export default {\n  test: {\n    globals: true // all of them\n  }\n}\n")).toBe(
      'export default {\n  test: {\n    globals: true, // all of them\n    runner: "freezegate/vitest/runner",\n    reporters: ["default", "freezegate/vitest/reporter"],\n    coverage: { enabled: true, provider: "istanbul" }\n  }\n}\n',
    );
  });

  it("adds before a closing brace on the last property's line", () => {
    expect(wired("export default {\n  test: {\n    globals: true },\n};\n")).toBe(
      'export default {\n  test: {\n    globals: true,\n    runner: "freezegate/vitest/runner",\n    reporters: ["default", "freezegate/vitest/reporter"],\n    coverage: { enabled: true, provider: "istanbul" } },\n};\n',
    );
  });

  it("keeps a byte-order mark first, before Vitest's reference line", () => {
    const text = wired("\ufeffexport default { plugins: [] }\n", "vite.config.mts");
    expect(text).toBe(
      '\ufeff/// <reference types="vitest/config" />\nexport default { plugins: [], test: { runner: "freezegate/vitest/runner", reporters: ["default", "freezegate/vitest/reporter"], coverage: { enabled: true, provider: "istanbul" } } }\n',
    );
  });

  it("adds to a reporter list with options, spread over lines", () => {
    const text = wired(
      'export default {\n  test: {\n    reporters: [\n      ["junit", { outputFile: "x.xml" }],\n    ],\n    runner: "freezegate/vitest/runner",\n    coverage: { provider: "istanbul", enabled: true },\n  },\n};\n',
    );
    expect(text).toContain(
      '    reporters: [\n      ["junit", { outputFile: "x.xml" }],\n      "freezegate/vitest/reporter",\n    ],\n',
    );
  });

  it.each([
    ["export default function () {\n  return {};\n}\n", "its default export is a function"],
    ["export default { test: {} } || {};\n", "its default export is an expression"],
    ["export const config = {};\n", "it has no `export default`"],
    ["export default { test: {}, ['te' + 'st']: {} };\n", "a computed key"],
    [
      "export default defineConfig({ test: { coverage: opts } });\n",
      "test.coverage option is not an object literal",
    ],
    ["export default { test: { projects: [[1, , 2]] } };\n", "an empty item in a list"],
    [
      "export default defineConfig({ test: {} }, extra);\n",
      "its defineConfig(...) has more than an object literal",
    ],
  ])("refuses %j", (text, why) => {
    expect(() => wireVitestConfig(text, "vitest.config.ts", "vitest.config.ts")).toThrow(
      ManualWiringNeeded,
    );
    expect(() => wireVitestConfig(text, "vitest.config.ts", "vitest.config.ts")).toThrow(why);
  });
});

describe("init vitest, then a real Vitest run", () => {
  it("records per-test coverage where freezegate reads it", () => {
    const repo = project({}, { all: true });
    cpSync(join(REPO_ROOT, "test/fixtures/vitest/unwired"), repo.dir, { recursive: true });
    const data = repo.path(".freezegate/vitest-coverage.jsonl");
    const vitest = () =>
      spawnSync(process.execPath, [repo.path("node_modules/vitest/vitest.mjs"), "run"], {
        cwd: repo.dir,
        encoding: "utf8",
        env: isolatedGitEnv({ FORCE_COLOR: "0", NO_COLOR: "1", CI: "1" }),
      });

    // As the fixture is, Vitest runs its tests and records nothing per test.
    const plain = vitest();
    expect(plain.status, plain.stdout + plain.stderr).toBe(0);
    expect(existsSync(data)).toBe(false);

    const wired = init(repo);
    expect(wired.status, wired.stderr).toBe(0);
    const run = vitest();
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const [headerLine, ...sections] = readFileSync(data, "utf8").trim().split("\n");
    const header = JSON.parse(headerLine as string) as {
      format: string;
      provider: string;
      tests: Array<{ id: string; state: string }>;
    };
    expect(header.format).toBe("freezegate-vitest-coverage");
    expect(header.provider).toBe("istanbul");
    expect(header.tests.map((t) => [t.id, t.state])).toEqual([
      ["tests/price.spec.ts::total > adds tax", "pass"],
      ["tests/price.spec.ts::total > is zero without items", "pass"],
      ["tests/price.spec.ts::discount", "pass"],
    ]);
    // The early return for no items ran only in the test without items.
    const price = sections
      .map((s) => JSON.parse(s) as { source: string; tests: Record<string, number[][]> })
      .find((s) => s.source === "src/price.ts");
    expect(price?.tests["1"]?.[0]).toContain(4);
    expect(price?.tests["0"]?.[0]).not.toContain(4);
  });
});
