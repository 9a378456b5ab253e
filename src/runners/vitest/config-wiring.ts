// Wiring freezegate's Vitest recorder into a project's Vitest configuration file: in the `test`
// options of the object the file exports (`export default defineConfig({...})`,
// `export default {...}`, `module.exports = ...`), the runner, the reporter, and coverage on
// with the istanbul provider (integrations/vitest/README.md). The edit is textual and minimal:
// only the missing properties are added, in the file's own indentation, quotes, line ends and
// trailing-comma style; nothing else moves.
//
// The file is TypeScript or JavaScript, read with a token scanner (src/languages/javascript),
// never run. A configuration that is not a plain object literal there (a function, a
// variable, mergeConfig, a spread that could hold the same options) is refused with the lines
// to add by hand. Every edit is checked by reading the result again: it must be wired, and
// everything else must read exactly as before; otherwise nothing is written. Pure: text in,
// text out (the `init` command reads and writes the file).

import { ConfigError } from "../../core/errors.js";
import { sameStrings } from "../../core/listing.js";
import { refusal } from "../../core/refusals/index.js";
import {
  appendItems,
  applyEdits,
  type Edit,
  type NewItem,
  objectItem,
  oneLine,
  type Style,
  styleOf,
} from "../../languages/javascript/list-edits.js";
import {
  type ListNode,
  listAt,
  objectProperties,
  type PropertyNode,
  type Span,
  spanText,
  type ValueNode,
  valueAt,
} from "../../languages/javascript/literals.js";
import {
  isIdent,
  isPunct,
  type JsScan,
  JsScanError,
  scanJs,
  type Token,
  tokenAt,
} from "../../languages/javascript/tokens.js";
import { lineOfOffset } from "../../languages/python/imports.js";

/** The recorder's modules, as package.json's exports name them. */
export const RUNNER_MODULE = "freezegate/vitest/runner";
export const REPORTER_MODULE = "freezegate/vitest/reporter";

// The same modules by path into the package (node_modules/freezegate/integrations/vitest/...),
// as a configuration written by hand may name them.
const RUNNER_PATH = /(^|[\\/])integrations[\\/]vitest[\\/]runner\.mjs$/;
const REPORTER_PATH = /(^|[\\/])integrations[\\/]vitest[\\/]reporter\.mjs$/;

const isRunner = (name: string) => name === RUNNER_MODULE || RUNNER_PATH.test(name);
const isReporter = (name: string) => name === REPORTER_MODULE || REPORTER_PATH.test(name);

export interface ShownLine {
  /** 1-based. */
  number: number;
  text: string;
}

export type VitestWiring =
  | { kind: "already"; projects: string[] | null }
  | {
      kind: "edited";
      text: string;
      /** What was added, in words ("the runner", ...). */
      added: string[];
      /** The lines the edit wrote or changed. */
      lines: ShownLine[];
      /** With test.projects (or test.workspace): what each project needs, one line each. */
      projects: string[] | null;
    };

/** The `test` options to add by hand, as lines (the quotes: `"`). */
export function manualLines(): string[] {
  return [
    "test: {",
    `  runner: "${RUNNER_MODULE}",`,
    `  reporters: ["default", "${REPORTER_MODULE}"],`,
    '  coverage: { enabled: true, provider: "istanbul" },',
    "},",
  ];
}

/** A configuration init cannot edit safely; the command prints manualLines() with it. */
export class ManualWiringNeeded extends ConfigError {
  constructor(label: string, why: string) {
    const { message, fix, code } = refusal("init-cannot-edit", {
      label,
      why,
      byHand: `add the lines printed above to the test options of ${label} by hand`,
    });
    super(message, { fix, code });
  }
}

/** The configuration file that Vitest would create without one, wired. */
export function newConfigText(): string {
  return [
    'import { defineConfig } from "vitest/config";',
    "",
    "export default defineConfig({",
    ...manualLines().map((line) => `  ${line}`),
    "});",
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Finding the exported configuration object.

/** Where the default export's expression starts: `export default` or `module.exports =`. */
function exportStarts(scan: JsScan): number[] {
  const t = scan.tokens;
  const starts: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const token = t[i] as Token;
    if (isIdent(token, "export") && isIdent(t[i + 1], "default")) starts.push(i + 2);
    if (
      isIdent(token, "module") &&
      isPunct(t[i + 1], ".") &&
      isIdent(t[i + 2], "exports") &&
      isPunct(t[i + 3], "=")
    ) {
      starts.push(i + 4);
    }
    // Only the top level: skip over every bracketed part.
    if (token.match > i) i = token.match;
  }
  return starts;
}

/** Whether the expression ends after token `last` (what may follow a finished export). */
function endsAfter(scan: JsScan, last: number): boolean {
  const next = scan.tokens[last + 1];
  if (next === undefined || isPunct(next, ";")) return true;
  if (isIdent(next, "satisfies") || isIdent(next, "as")) return true;
  // A new statement on a later line (a name or keyword; not `(`, `[`, `.` or an operator,
  // which would continue the expression).
  const between = scan.text.slice(tokenAt(scan, last).end, next.start);
  return /[\r\n]/.test(between) && next.kind === "ident";
}

/** The index of the `{` of the exported object; a ManualWiringNeeded saying why not. */
function exportedObject(scan: JsScan, label: string): number {
  const starts = exportStarts(scan);
  if (starts.length === 0) {
    throw new ManualWiringNeeded(label, "it has no `export default` (or `module.exports =`)");
  }
  if (starts.length > 1) throw new ManualWiringNeeded(label, "it has more than one default export");
  const start = starts[0] as number;
  const t = scan.tokens;
  const head = t[start];
  const notObject = (what: string) =>
    new ManualWiringNeeded(label, `its default export is ${what}, not an object literal`);
  if (isPunct(head, "{")) {
    if (!endsAfter(scan, (head as Token).match)) throw notObject("an expression");
    return start;
  }
  if (
    isIdent(head, "async") ||
    isIdent(head, "function") ||
    (isPunct(head, "(") && isPunct(t[(head as Token).match + 1], "=>"))
  ) {
    throw notObject("a function");
  }
  if (isIdent(head) && isPunct(t[start + 1], "(")) {
    const name = (head as Token).text;
    const open = t[start + 1] as Token;
    const arg = t[start + 2];
    if (name === "defineConfig" && isPunct(arg, "{")) {
      const after = (arg as Token).match + 1;
      const closing = isPunct(t[after], ",") ? after + 1 : after;
      if (closing === open.match && endsAfter(scan, open.match)) return start + 2;
      throw new ManualWiringNeeded(label, "its defineConfig(...) has more than an object literal");
    }
    if (name === "mergeConfig") throw notObject("mergeConfig(...)");
    const functionArg =
      isPunct(arg, "(") ||
      isIdent(arg, "async") ||
      isIdent(arg, "function") ||
      (isIdent(arg) && isPunct(t[start + 3], "=>"));
    if (name === "defineConfig" && functionArg) {
      throw notObject("a function (defineConfig(() => ...))");
    }
    if (name === "defineConfig" && isIdent(arg) && t[start + 3] === t[open.match]) {
      throw notObject(`the variable ${(arg as Token).text}`);
    }
    throw notObject(`${name}(...)`);
  }
  if (isIdent(head) && endsAfter(scan, start)) {
    throw notObject(`the variable ${(head as Token).text}`);
  }
  throw notObject("an expression");
}

// ---------------------------------------------------------------------------------------------
// Reading what the configuration has.

interface ObjectNode {
  list: ListNode;
  properties: PropertyNode[];
}

interface Inspection {
  top: ObjectNode;
  /** The `test` property and its object, when there is one. */
  test: { property: PropertyNode; object: ObjectNode } | null;
  runner: PropertyNode | null;
  reporters: { property: PropertyNode; value: ValueNode; wired: boolean } | null;
  coverage: {
    property: PropertyNode;
    object: ObjectNode;
    enabled: PropertyNode | null;
    provider: PropertyNode | null;
  } | null;
  projects: PropertyNode | null;
}

function scanned(text: string, label: string): JsScan {
  try {
    return scanJs(text);
  } catch (error) {
    if (!(error instanceof JsScanError)) throw error;
    const line = text.slice(0, error.offset).split("\n").length;
    throw new ManualWiringNeeded(label, `line ${line}: ${error.message}`);
  }
}

/** The one property named `key`; ManualWiringNeeded for a spread, or the key set twice. */
function property(object: ObjectNode, key: string, where: string, label: string) {
  const found = object.properties.filter((p) => p.key === key);
  if (found.length > 1) throw new ManualWiringNeeded(label, `it sets ${where}${key} twice`);
  const hidden = object.properties.find((p) => p.kind === "spread" || p.kind === "computed");
  if (hidden) {
    const what = hidden.kind === "spread" ? "a spread (...)" : "a computed key ([...])";
    throw new ManualWiringNeeded(
      label,
      `${where === "" ? "its configuration object" : where.slice(0, -1)} has ${what} that could set the same options`,
    );
  }
  const one = found[0] ?? null;
  if (one !== null && one.kind !== "init") {
    throw new ManualWiringNeeded(label, `${where}${key} is not written as \`${key}: value\``);
  }
  return one;
}

function propertyValue(scan: JsScan, p: PropertyNode): ValueNode {
  return valueAt(scan, p.value as Span);
}

function objectValue(scan: JsScan, p: PropertyNode, name: string, label: string): ObjectNode {
  const value = propertyValue(scan, p);
  if (value.kind !== "object") {
    throw new ManualWiringNeeded(label, `its ${name} option is not an object literal`);
  }
  return { list: value.list, properties: value.properties };
}

/** test.runner, when it is freezegate's; a ConfigError for another runner. */
function runnerOf(scan: JsScan, test: ObjectNode, label: string): Inspection["runner"] {
  const runner = property(test, "runner", "test.", label);
  if (runner === null) return null;
  const value = propertyValue(scan, runner);
  if (value.kind !== "string" || !isRunner(value.value)) {
    const shown =
      value.kind === "string" ? `"${value.value}"` : spanText(scan, runner.value as Span);
    throw refusal("vitest-config-unsupported", {
      label,
      setting: "test.runner",
      value: shown,
      why: "freezegate records per-test coverage with its own runner (which extends Vitest's), and Vitest takes one runner",
      change: "remove test.runner",
    });
  }
  return runner;
}

/** test.reporters, and whether freezegate's reporter is among them. */
function reportersOf(scan: JsScan, test: ObjectNode, label: string): Inspection["reporters"] {
  const reporters = property(test, "reporters", "test.", label);
  if (reporters === null) return null;
  const value = propertyValue(scan, reporters);
  if (value.kind === "string")
    return { property: reporters, value, wired: isReporter(value.value) };
  if (value.kind !== "array") {
    throw new ManualWiringNeeded(
      label,
      "its test.reporters is neither a string nor an array literal",
    );
  }
  const wired = value.list.items.some((item) => {
    let element = valueAt(scan, item);
    // A reporter with options: ["name", { ... }].
    if (element.kind === "array" && element.list.items[0]) {
      element = valueAt(scan, element.list.items[0]);
    }
    return element.kind === "string" && isReporter(element.value);
  });
  return { property: reporters, value, wired };
}

/** test.coverage; a ConfigError for another provider than istanbul, or coverage turned off. */
function coverageOf(scan: JsScan, test: ObjectNode, label: string): Inspection["coverage"] {
  const coverage = property(test, "coverage", "test.", label);
  if (coverage === null) return null;
  const object = objectValue(scan, coverage, "test.coverage", label);
  const provider = property(object, "provider", "test.coverage.", label);
  if (provider !== null) {
    const value = propertyValue(scan, provider);
    if (value.kind !== "string") {
      throw new ManualWiringNeeded(label, "its test.coverage.provider is not a string literal");
    }
    if (value.value !== "istanbul") {
      throw refusal("vitest-config-unsupported", {
        label,
        setting: "test.coverage.provider",
        value: `"${value.value}"`,
        why:
          value.value === "v8"
            ? "the v8 provider keeps no counters inside the test process, so freezegate cannot record which test ran which line"
            : "freezegate records per-test coverage from istanbul's counters only",
        change: `set test.coverage.provider to "istanbul" (npm i -D @vitest/coverage-istanbul at Vitest's exact version)`,
      });
    }
  }
  const enabled = property(object, "enabled", "test.coverage.", label);
  if (enabled !== null) {
    const value = propertyValue(scan, enabled);
    if (value.kind !== "boolean" || !value.value) {
      const shown = spanText(scan, enabled.value as Span);
      throw refusal("vitest-config-unsupported", {
        label,
        setting: "test.coverage.enabled",
        value: shown,
        why: "freezegate records per-test coverage only in runs with coverage on",
        change: "set it to true (or remove it)",
      });
    }
  }
  return { property: coverage, object, enabled, provider };
}

/** `read()`, with a literal the reader cannot take apart (a JsScanError) as ManualWiringNeeded. */
function readOrRefuse<T>(label: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof JsScanError)) throw error;
    throw new ManualWiringNeeded(label, error.message);
  }
}

/** What the exported configuration has of the runner, the reporter and coverage. */
function inspect(scan: JsScan, label: string): Inspection {
  const topList = listAt(scan, exportedObject(scan, label));
  const top = { list: topList, properties: objectProperties(scan, topList) };
  const none = { top, test: null, runner: null, reporters: null, coverage: null, projects: null };
  const testProperty = property(top, "test", "", label);
  if (testProperty === null) return none;
  const test = objectValue(scan, testProperty, "test", label);
  return {
    top,
    test: { property: testProperty, object: test },
    runner: runnerOf(scan, test, label),
    reporters: reportersOf(scan, test, label),
    coverage: coverageOf(scan, test, label),
    projects: test.properties.find((p) => p.key === "projects" || p.key === "workspace") ?? null,
  };
}

/** What the configuration still lacks. */
function missing(i: Inspection): string[] {
  const out: string[] = [];
  if (i.runner === null) out.push("the runner");
  if (i.reporters === null || !i.reporters.wired) out.push("the reporter");
  if (i.coverage === null || i.coverage.enabled === null || i.coverage.provider === null) {
    out.push("coverage with the istanbul provider");
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Editing: the edits in the file's own layout (src/languages/javascript/list-edits.ts).

function shownLines(text: string, ranges: Array<[number, number]>, eol: string): ShownLine[] {
  const lineOf = lineOfOffset(text);
  const numbers = new Set<number>();
  for (const [from, to] of ranges) {
    if (to === from) continue;
    const start = text.startsWith(eol, from) ? from + eol.length : from;
    for (let n = lineOf(start); n <= lineOf(Math.max(start, to - 1)); n++) numbers.add(n);
  }
  const lines = text.split("\n");
  return [...numbers]
    .sort((a, b) => a - b)
    .map((n) => ({ number: n, text: (lines[n - 1] ?? "").replace(/\r$/, "") }));
}

/** A file name that Vite reads as its own configuration (vite.config.*), in TypeScript. */
function isTypeScriptViteConfig(name: string): boolean {
  return /^vite\.config\.[mc]?ts$/.test(name);
}

/** The edits that add freezegate's reporter to test.reporters (a string, or a list). */
function addReporter(
  scan: JsScan,
  style: Style,
  reporters: NonNullable<Inspection["reporters"]>,
): Edit[] {
  const reporter = `${style.quote}${REPORTER_MODULE}${style.quote}`;
  const { value, property: p } = reporters;
  if (value.kind === "array") {
    // An empty list is Vitest's default reporter: keep it.
    const items =
      value.list.items.length === 0 ? [oneLine(`${style.quote}default${style.quote}`)] : [];
    items.push(oneLine(reporter));
    return appendItems(scan, style, value.list, items, false);
  }
  const token = tokenAt(scan, (p.value as Span).first);
  return [
    { at: token.start, remove: token.end - token.start, insert: `[${token.text}, ${reporter}]` },
  ];
}

/**
 * Wire the recorder into the configuration `text` of the file `name` (shown as `label`): add
 * what is missing of the runner, the reporter and istanbul coverage to its `test` options.
 */
export function wireVitestConfig(text: string, name: string, label: string): VitestWiring {
  const scan = scanned(text, label);
  const before = readOrRefuse(label, () => inspect(scan, label));
  const projects = readOrRefuse(label, () =>
    before.projects === null ? null : projectsAdvice(scan, before.projects, label),
  );
  const added = missing(before);
  if (added.length === 0) return { kind: "already", projects };

  const style = styleOf(scan, before.top.list);
  const q = (s: string) => `${style.quote}${s}${style.quote}`;
  const runner = oneLine(`runner: ${q(RUNNER_MODULE)}`);
  const reporters = oneLine(`reporters: [${q("default")}, ${q(REPORTER_MODULE)}]`);
  const enabled = oneLine("enabled: true");
  const provider = oneLine(`provider: ${q("istanbul")}`);
  const coverage = oneLine(`coverage: { ${enabled.inline}, ${provider.inline} }`);
  const edits: Edit[] = [];
  let reference = "";

  if (before.test === null) {
    const test = objectItem("test", [runner, reporters, coverage], style);
    edits.push(...appendItems(scan, style, before.top.list, [test], true));
    if (isTypeScriptViteConfig(name) && !/vitest\/config|reference\s+types=["']vitest/.test(text)) {
      // Vite's own defineConfig knows no `test` key: Vitest's documented reference adds it.
      const at = text.startsWith("\ufeff") ? 1 : 0;
      reference = `/// <reference types="vitest/config" />${style.eol}`;
      edits.push({ at, remove: 0, insert: reference });
    }
  } else {
    const testItems: NewItem[] = [];
    if (before.runner === null) testItems.push(runner);
    if (before.reporters === null) {
      testItems.push(reporters);
    } else if (!before.reporters.wired) {
      edits.push(...addReporter(scan, style, before.reporters));
    }
    if (before.coverage === null) {
      testItems.push(coverage);
    } else {
      const items: NewItem[] = [];
      if (before.coverage.enabled === null) items.push(enabled);
      if (before.coverage.provider === null) items.push(provider);
      if (items.length > 0) {
        edits.push(...appendItems(scan, style, before.coverage.object.list, items, false));
      }
    }
    if (testItems.length > 0) {
      // An empty `test: {}` opens up into lines where the object around it has lines.
      const top = before.top.list;
      const topLines = /[\r\n]/.test(
        text.slice(tokenAt(scan, top.open).end, tokenAt(scan, top.close).start),
      );
      edits.push(...appendItems(scan, style, before.test.object.list, testItems, topLines));
    }
  }

  const result = applyEdits(text, edits);
  verify(scan, before, result.text, label, reference);
  return {
    kind: "edited",
    text: result.text,
    added,
    lines: shownLines(result.text, result.ranges, style.eol),
    projects,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading the edit back.

function cannotVerify(label: string, what: string): ManualWiringNeeded {
  return new ManualWiringNeeded(label, `the edited file did not read back as ${what}`);
}

/** The properties' texts, leaving out those named in `skip`. */
function otherProperties(scan: JsScan, object: ObjectNode, skip: string[]): string[] {
  return object.properties
    .filter((p) => p.key === null || !skip.includes(p.key))
    .map((p) => spanText(scan, p));
}

function verify(
  oldScan: JsScan,
  before: Inspection,
  newText: string,
  label: string,
  /** The line added at the top of the file, if any. */
  reference: string,
): void {
  let scan: JsScan;
  let after: Inspection;
  try {
    scan = scanJs(newText);
    after = inspect(scan, label);
  } catch (error) {
    if (error instanceof JsScanError || error instanceof ConfigError) {
      throw cannotVerify(label, "a configuration freezegate can read");
    }
    throw error;
  }
  if (missing(after).length > 0) throw cannotVerify(label, "wired");
  // Outside the exported object nothing changed but the reference line Vite configs get.
  const oldText = oldScan.text;
  const oldOpen = tokenAt(oldScan, before.top.list.open).start;
  const oldClose = tokenAt(oldScan, before.top.list.close).end;
  const newOpen = tokenAt(scan, after.top.list.open).start;
  const newClose = tokenAt(scan, after.top.list.close).end;
  const bom = newText.startsWith("\ufeff") ? "\ufeff" : "";
  const prefix = bom + newText.slice(bom.length + reference.length, newOpen);
  if (prefix !== oldText.slice(0, oldOpen) || newText.slice(newClose) !== oldText.slice(oldClose)) {
    throw cannotVerify(label, "the same file outside its configuration object");
  }
  if (
    !sameStrings(
      otherProperties(oldScan, before.top, ["test"]),
      otherProperties(scan, after.top, ["test"]),
    )
  ) {
    throw cannotVerify(label, "the same options besides test");
  }
  if (before.test === null || after.test === null) return;
  const touched = ["runner", "reporters", "coverage"];
  const oldTest = before.test.object;
  const newTest = after.test.object;
  if (
    !sameStrings(
      otherProperties(oldScan, oldTest, touched),
      otherProperties(scan, newTest, touched),
    )
  ) {
    throw cannotVerify(label, "the same test options besides the ones added");
  }
  if (
    before.runner !== null &&
    spanText(oldScan, before.runner) !== spanText(scan, after.runner as PropertyNode)
  ) {
    throw cannotVerify(label, "the same test.runner");
  }
  if (before.reporters !== null && after.reporters !== null) {
    const elements = (s: JsScan, v: ValueNode, p: PropertyNode) =>
      v.kind === "array"
        ? v.list.items.map((item) => spanText(s, item))
        : [spanText(s, p.value as Span)];
    const old = elements(oldScan, before.reporters.value, before.reporters.property);
    const now = elements(scan, after.reporters.value, after.reporters.property);
    if (!sameStrings(old, now.slice(0, old.length)))
      throw cannotVerify(label, "the same reporters");
  }
  if (before.coverage !== null && after.coverage !== null) {
    const old = otherProperties(oldScan, before.coverage.object, []);
    const now = otherProperties(scan, after.coverage.object, []);
    if (!sameStrings(old, now.slice(0, old.length))) {
      throw cannotVerify(label, "the same coverage options");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Projects: every project runs with its own test options.

function projectsAdvice(scan: JsScan, p: PropertyNode, label: string): string[] {
  const add = `add runner: "${RUNNER_MODULE}" to`;
  if (p.kind !== "init") return [`  ${add} the test options of every project that should record`];
  const value = propertyValue(scan, p);
  if (value.kind !== "array") {
    return [`  ${add} the test options of every project that should record`];
  }
  return value.list.items.map((item, k) => {
    const element = valueAt(scan, item);
    if (element.kind === "string") {
      return `  ${element.value}: ${add} the test options in the configuration file of each project it names`;
    }
    if (element.kind !== "object") {
      return `  project ${k + 1} (${spanText(scan, item)}): ${add} its test options`;
    }
    const object = { list: element.list, properties: element.properties };
    const find = (o: ObjectNode, key: string) =>
      o.properties.find((x) => x.key === key && x.kind === "init");
    const testProp = find(object, "test");
    const test = testProp ? propertyValue(scan, testProp) : null;
    const testObject =
      test?.kind === "object" ? { list: test.list, properties: test.properties } : null;
    const nameProp = testObject ? find(testObject, "name") : undefined;
    const name = nameProp ? propertyValue(scan, nameProp) : null;
    const shown =
      name?.kind === "string" ? `inline project "${name.value}"` : `inline project ${k + 1}`;
    const runnerProp = testObject ? find(testObject, "runner") : undefined;
    const runner = runnerProp ? propertyValue(scan, runnerProp) : null;
    if (runner?.kind === "string" && isRunner(runner.value)) return `  ${shown}: has the runner`;
    const extendsProp = find(object, "extends");
    const extendsValue = extendsProp ? propertyValue(scan, extendsProp) : null;
    if (runnerProp === undefined && extendsValue?.kind === "boolean" && extendsValue.value) {
      return `  ${shown}: takes the runner from ${label} (extends: true)`;
    }
    return `  ${shown}: ${add} its test options${runnerProp === undefined ? ", or set extends: true" : ""}`;
  });
}
