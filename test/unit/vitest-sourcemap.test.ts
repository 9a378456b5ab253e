// The recorder's source-map reading (integrations/vitest/sourcemap.mjs) on real maps: esbuild
// (the transform Vite uses for TypeScript) turns a TypeScript file into JavaScript; every
// token of the output must map back to the line it came from in the TypeScript source.

import { transformSync } from "esbuild";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain ESM module without types, loaded inside Vitest workers
import { decodeMappings, mapLocation } from "../../integrations/vitest/sourcemap.mjs";

type Decoded = number[][][];
const decode = decodeMappings as (mappings: string) => Decoded;
const locate = mapLocation as (
  decoded: Decoded,
  loc: { start: { line: number; column: number }; end: { line: number; column: number } },
) => [number, number, number] | null;

const SOURCE = `// a comment first
export interface Shape {
  size: number;
}

import type { Other } from "./other.js";

export function area(shape: Shape): number {
  const side: number = shape.size;
  return Math.round(
    side *
      side,
  );
}

export const label = (s: Shape): string => \`size \${s.size}\`;
`;

function compiled() {
  const out = transformSync(SOURCE, {
    loader: "ts",
    format: "esm",
    sourcemap: "external",
    sourcefile: "shape.ts",
  });
  return { code: out.code, map: JSON.parse(out.map) as { mappings: string; sources: string[] } };
}

/** 1-based line and 0-based column of the first occurrence of text. */
function position(text: string, needle: string): { line: number; column: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${needle} not found`);
  const before = text.slice(0, at).split("\n");
  return { line: before.length, column: (before.at(-1) as string).length };
}

describe("source maps of transformed TypeScript", () => {
  const { code, map } = compiled();
  const decoded = decode(map.mappings);

  it.each([
    ["const side = shape.size", "const side: number = shape.size"],
    ["return Math.round(", "return Math.round("],
    ["const label", "export const label"],
  ])("maps the statement starting at %s to its TypeScript line", (generated, original) => {
    const start = position(code, generated);
    const end = { line: start.line, column: start.column + generated.length };
    const mapped = locate(decoded, { start, end });
    expect(mapped?.[0]).toBe(0);
    expect(mapped?.[1]).toBe(position(SOURCE, original).line);
  });

  it("maps a statement over several lines to its first and last TypeScript lines", () => {
    const start = position(code, "return Math.round(");
    const close = position(code.slice(code.indexOf("return Math.round(")), ");");
    const end = { line: start.line + close.line - 1, column: close.column + 2 };
    const mapped = locate(decoded, { start, end });
    const first = position(SOURCE, "return Math.round(").line;
    expect(mapped?.slice(1)).toEqual([first, first + 3]);
  });

  it("gives no position where the generated line has no mapping", () => {
    expect(
      locate(decoded, { start: { line: 999, column: 0 }, end: { line: 999, column: 4 } }),
    ).toBe(null);
  });

  it("decodes segments with negative deltas and several lines", () => {
    // "AAAA;AACA,EAAE;" : line 0 [0,0,0,0]; line 1 [0,0,1,0] and [2,0,1,2]
    expect(decode("AAAA;AACA,EAAE")).toEqual([
      [[0, 0, 0, 0]],
      [
        [0, 0, 1, 0],
        [2, 0, 1, 2],
      ],
    ]);
    // "AAAA,EAAD" : second segment goes back one original column (D = -1)
    expect(decode("AAAA,EAAD")).toEqual([
      [
        [0, 0, 0, 0],
        [2, 0, 0, -1],
      ],
    ]);
  });
});
