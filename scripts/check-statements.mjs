#!/usr/bin/env node
// Measures how often findPythonStatements agrees with coverage.py itself, line by line.
//
// Usage (after `npm run build`):
//   node scripts/check-statements.mjs [--min 99.9] [--top 15] [--json] [PATH ...]
// PATH is a .py file or a directory searched recursively; the default is Debian's standard
// library, /usr/lib/python3.11. The reference answers come from scripts/statements-oracle.py
// run by /usr/bin/python3 (coverage.py 6.5.0 on Python 3.11). Files coverage.py cannot parse
// (Python 2 files, broken test data) are skipped and counted separately.
// Exit status: 0 when agreement >= --min (default 99.9), 1 below it, 2 when it cannot run.

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const PYTHON = process.env.FREEZEGATE_PYTHON ?? "/usr/bin/python3";
const ORACLE = join(here, "statements-oracle.py");

function parseArgs(argv) {
  const options = { min: 99.9, top: 15, json: false, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--min") options.min = Number(argv[++i]);
    else if (arg === "--top") options.top = Number(argv[++i]);
    else if (arg === "--json") options.json = true;
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else options.paths.push(arg);
  }
  if (options.paths.length === 0) options.paths.push("/usr/lib/python3.11");
  return options;
}

function collect(path, out) {
  const stat = statSync(path);
  if (stat.isFile()) {
    if (path.endsWith(".py")) out.push(path);
    return;
  }
  if (!stat.isDirectory()) return;
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const child = join(path, entry.name);
    if (entry.isDirectory() && !entry.isSymbolicLink()) collect(child, out);
    else if (entry.isFile() && entry.name.endsWith(".py")) out.push(child);
  }
}

function runOracle(files) {
  const result = spawnSync(PYTHON, [ORACLE, "--files-from", "-"], {
    input: `${files.join("\n")}\n`,
    encoding: "utf8",
    maxBuffer: 1024 * 1024 * 1024,
  });
  if (result.error) throw new Error(`cannot run ${PYTHON}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`oracle failed: ${result.stderr.trim()}`);
  const answers = new Map();
  for (const line of result.stdout.split("\n")) {
    if (line.trim()) {
      const record = JSON.parse(line);
      answers.set(record.id, record);
    }
  }
  return answers;
}

function firstWord(text) {
  const match = /^\s*(@|[A-Za-z_]+|["'#]|\S)/.exec(text ?? "");
  return match ? match[1] : "(blank)";
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // FREEZEGATE_STATEMENTS_MODULE points at another build of the module (e.g. while editing).
  const modulePath =
    process.env.FREEZEGATE_STATEMENTS_MODULE ??
    resolve(here, "..", "dist", "languages", "python", "statements.js");
  const { findPythonStatements } = await import(pathToFileURL(modulePath).href).catch((error) => {
    throw new Error(`cannot load ${modulePath} (run npm run build): ${error}`);
  });

  const files = [];
  for (const path of options.paths) collect(resolve(path), files);
  const oracle = runOracle(files);

  const totals = { files: files.length, compared: 0, skipped: 0, threw: 0, lines: 0, agree: 0 };
  const kinds = new Map();
  const skipped = [];
  let ourMillis = 0;
  for (const file of files) {
    const record = oracle.get(file);
    if (record?.status !== "ok") {
      totals.skipped++;
      skipped.push(`${file}: ${record?.reason ?? "no answer"}`);
      continue;
    }
    totals.compared++;
    const source = readFileSync(file, "utf8");
    const lines = source.split(/\r\n|\r|\n/);
    let map = null;
    const started = performance.now();
    try {
      map = findPythonStatements(source, { path: file });
    } catch (error) {
      totals.threw++;
      const key = `threw: ${String(error.message)
        .replace(/ at line \d+$/, "")
        .replace(file, "FILE")}`;
      const entry = kinds.get(key) ?? { count: 0, example: `${file}` };
      entry.count += record.lines;
      kinds.set(key, entry);
    }
    ourMillis += performance.now() - started;
    totals.lines += record.lines;
    if (map === null) continue;
    for (let line = 1; line <= record.lines; line++) {
      const theirs = record.answers[line - 1];
      const ours = map.statementOf(line);
      if (ours === theirs) {
        totals.agree++;
        continue;
      }
      const anchor = theirs ?? ours;
      const category =
        theirs === null
          ? "ours-only statement"
          : ours === null
            ? "coverage-only statement"
            : "different first line";
      const key = `${category} [${firstWord(lines[anchor - 1])}]`;
      const entry = kinds.get(key) ?? { count: 0, example: "" };
      entry.count++;
      if (!entry.example) {
        entry.example = `${file}:${line}: ours=${ours} coverage=${theirs}: ${String(lines[line - 1])
          .trim()
          .slice(0, 80)}`;
      }
      kinds.set(key, entry);
    }
  }

  const percent = totals.lines === 0 ? 100 : (100 * totals.agree) / totals.lines;
  const top = [...kinds.entries()].sort((a, b) => b[1].count - a[1].count).slice(0, options.top);
  if (options.json) {
    console.log(JSON.stringify({ ...totals, percent, ourMillis, top, skipped }, null, 2));
  } else {
    console.log(`roots:            ${options.paths.join(" ")}`);
    console.log(
      `files:            ${totals.files} (${totals.compared} compared, ${totals.skipped} skipped: coverage.py cannot parse them)`,
    );
    if (totals.threw) console.log(`we refused:       ${totals.threw} files coverage.py parsed`);
    console.log(`lines:            ${totals.lines}`);
    console.log(`agreeing lines:   ${totals.agree}`);
    console.log(`agreement:        ${percent.toFixed(4)}%`);
    console.log(`our time:         ${ourMillis.toFixed(0)} ms for ${totals.compared} files`);
    if (top.length > 0) {
      console.log("top disagreement kinds (lines, example):");
      for (const [key, { count, example }] of top) {
        console.log(`  ${String(count).padStart(6)}  ${key}\n          ${example}`);
      }
    }
    if (skipped.length > 0) {
      console.log("skipped files:");
      for (const line of skipped.slice(0, 20)) console.log(`  ${line}`);
      if (skipped.length > 20) console.log(`  ... and ${skipped.length - 20} more`);
    }
  }
  process.exitCode = percent >= options.min ? 0 : 1;
}

main().catch((error) => {
  console.error(`check-statements: ${error.message}`);
  process.exitCode = 2;
});
