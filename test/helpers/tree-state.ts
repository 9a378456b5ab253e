// What a directory holds, to show that a refused run wrote and lost nothing: every entry's
// path and kind, a hash of each regular file's bytes, each link's target. Pipes and devices
// are noted, never opened (opening a pipe would wait for a writer).

import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Entries under `dir` (the .git directory included), path -> "file <mode> <sha256>",
 * "link -> target", ... Names are read as bytes (a name need not be UTF-8) and keyed with
 * their bytes JSON-escaped as Latin-1.
 */
export function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (full: Buffer, rel: string) => {
    for (const name of readdirSync(full, { encoding: "buffer" }).sort(Buffer.compare)) {
      const path = `${rel}${name.toString("latin1")}`;
      const entry = Buffer.concat([full, Buffer.from("/"), name]);
      const stat = lstatSync(entry);
      if (stat.isDirectory()) {
        state[path] = "directory";
        walk(entry, `${path}/`);
      } else if (stat.isFile()) {
        const sha = createHash("sha256").update(readFileSync(entry)).digest("hex");
        state[path] = `file ${stat.mode.toString(8)} ${sha}`;
      } else if (stat.isSymbolicLink()) {
        state[path] = `link -> ${readlinkSync(entry)}`;
      } else {
        state[path] = stat.isFIFO() ? "fifo" : "special";
      }
    }
  };
  walk(Buffer.from(dir), "");
  return state;
}
