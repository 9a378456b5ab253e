// The README is the front door and docs/ holds the details: every relative link between them
// must reach a file, and a `#anchor` a heading of that file, or a reader lands nowhere. The
// README's demo output must also be what `npm run demo` prints (the golden file that
// test/integration/cli-audit.test.ts checks against the real demo).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli.js";
import { normalize } from "../helpers/golden.js";

/** The user documentation: the README, every page of docs/, the pytest plugin's README. */
function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(REPO_ROOT, "docs", name));
  return [join(REPO_ROOT, "README.md"), ...docs, join(REPO_ROOT, "integrations/pytest/README.md")];
}

/** The lines of a Markdown text outside fenced code blocks. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence === null) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings, numbered as GitHub numbers repeats. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every relative link of `file` that reaches no file, or no heading of it: "file: target". */
function brokenLinks(file: string, read: (path: string) => string | null): string[] {
  const text = read(file);
  if (text === null) return [`${file}: cannot be read`];
  const broken: string[] = [];
  // Inline code is text, not links: `id[*](x)` shows a pattern.
  const prose = proseLines(text)
    .join("\n")
    .replace(/`[^`\n]*`/g, "");
  for (const [, target] of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const link = target as string;
    if (/^[a-z][a-z+.-]*:/i.test(link)) continue;
    const hash = link.indexOf("#");
    const path = hash === -1 ? link : link.slice(0, hash);
    const anchor = hash === -1 ? null : decodeURIComponent(link.slice(hash + 1));
    const resolved = path === "" ? file : join(dirname(file), decodeURIComponent(path));
    const targetText = read(resolved);
    if (targetText === null) {
      broken.push(`${relative(REPO_ROOT, file)}: ${link} (no such file)`);
    } else if (anchor !== null && !anchorsOf(targetText).has(anchor)) {
      broken.push(`${relative(REPO_ROOT, file)}: ${link} (no such heading)`);
    }
  }
  return broken;
}

/** A file's text; "" for a directory (a link may name one); null when there is none. */
function readDisk(path: string): string | null {
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

describe("links in the README and docs/", () => {
  it("reach an existing file, and a heading of it for #anchor", () => {
    const files = documentationFiles();
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => brokenLinks(file, readDisk))).toEqual([]);
  });

  it("are found broken when the file or the heading is missing", () => {
    const pages: Record<string, string> = {
      "/r/README.md": [
        "# Title",
        "See [ok](docs/a.md#the-gates), [here](#title), [dup](docs/a.md#notes-1),",
        "[gone](docs/gone.md), [bad anchor](docs/a.md#no-such), [self](#nope),",
        "[web](https://example.com/x#y), and `[code](docs/gone.md)` is no link.",
        "```",
        "[fenced](docs/gone.md)",
        "```",
      ].join("\n"),
      "/r/docs/a.md":
        "# A\n\n## The gates\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n",
    };
    const read = (path: string) => pages[path] ?? null;
    expect(brokenLinks("/r/README.md", read).map((line) => line.replace(/^.*?: /, ""))).toEqual([
      "docs/gone.md (no such file)",
      "docs/a.md#no-such (no such heading)",
      "#nope (no such heading)",
    ]);
    expect([...anchorsOf(pages["/r/docs/a.md"] as string)]).toEqual([
      "a",
      "the-gates",
      "notes",
      "notes-1",
    ]);
  });

  it("use GitHub's anchors for headings with code and punctuation", () => {
    expect([
      ...anchorsOf(
        "## Expiry and `extend`\n## What `--output` never replaces\n## Dates and `FREEZEGATE_NOW`\n## pytest's `python_files`\n",
      ),
    ]).toEqual([
      "expiry-and-extend",
      "what---output-never-replaces",
      "dates-and-freezegate_now",
      "pytests-python_files",
    ]);
  });
});

describe("the README", () => {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

  it("starts with the command lines that run the demo and the tests on a fresh clone", () => {
    const commands = /^# freezegate\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(commands.split("\n").map((line) => line.replace(/\s+#.*$/, ""))).toEqual([
      "npm ci && npm run demo",
      "npm ci && npm test",
      "",
    ]);
  });

  it("shows the demo's real output (the golden file the demo is checked against)", () => {
    const shown = /\n```\n(freezegate audit of base\.\.\.HEAD[\s\S]*?)```\n/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const golden = readFileSync(join(REPO_ROOT, "test/golden/demo-audit.txt"), "utf8");
    expect(normalize(shown as string, {})).toBe(golden);
  });
});
