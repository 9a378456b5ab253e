// Run in a bench workload directory (bench/work/large-30/lines after `npm run bench`):
//   node bench/floor/sqlite.cjs   (time it with /usr/bin/time or alternating runs)
// Floor C: B + better-sqlite3 open + one scan of the context table + the changed files' rows
// packed in one value per file (the query freezegate uses), decoded by nothing.
const { spawnSync } = require("node:child_process");
const r = spawnSync("git", ["diff", "--no-color", "--no-ext-diff", "-U0", "base...HEAD"], {
  encoding: "utf8",
  maxBuffer: 1 << 28,
});
if (r.status !== 0) throw new Error("git");
const files = [...r.stdout.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((m) => m[1]);
const Database = require("better-sqlite3");
const db = new Database(".coverage", { readonly: true, fileMustExist: true });
db.pragma("cache_size = -2000");
const n = db
  .prepare("SELECT count(*), min(id), max(id), sum(context GLOB '*|run') FROM context")
  .raw(true)
  .get();
const ids = new Map(db.prepare("SELECT path, id FROM file").raw(true).all());
const q = db
  .prepare(
    `SELECT count(*), CAST(group_concat(context_id || ',' || length(CAST(numbits AS BLOB)) || ',' || CAST(numbits AS BLOB), '') AS BLOB) FROM line_bits WHERE file_id = ?`,
  )
  .raw(true);
let rows = 0;
for (const [path, id] of ids)
  if (files.some((f) => path === f || path.endsWith(`/${f}`))) rows += q.get(id)[0];
if (process.env.SHOW) console.error(files.length, n, rows);
process.exit(0);
