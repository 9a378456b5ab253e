// Run in a bench workload directory (bench/work/large-30/lines after `npm run bench`):
//   node bench/floor/sqlite.cjs   (time it with /usr/bin/time or alternating runs)
// Floor C: B + node:sqlite open + one scan of the context table + the changed files' rows
// packed in one value per file (the query freezegate uses), decoded by nothing.
const { spawnSync } = require("node:child_process");
const r = spawnSync("git", ["diff", "--no-color", "--no-ext-diff", "-U0", "base...HEAD"], {
  encoding: "utf8",
  maxBuffer: 1 << 28,
});
if (r.status !== 0) throw new Error("git");
const files = [...r.stdout.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((m) => m[1]);
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(".coverage", { readOnly: true });
db.exec("PRAGMA cache_size = -128");
const n = db
  .prepare(
    "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi, sum(context GLOB '*|run') AS run FROM context",
  )
  .get();
const ids = db.prepare("SELECT path, id FROM file").all();
const q = db.prepare(
  `SELECT count(*) AS rows, CAST(group_concat(context_id || ',' || length(CAST(numbits AS BLOB)) || ',' || CAST(numbits AS BLOB), '') AS BLOB) AS packed FROM line_bits WHERE file_id = ?`,
);
let rows = 0;
for (const { path, id } of ids)
  if (files.some((f) => path === f || path.endsWith(`/${f}`))) rows += q.get(id).rows;
if (process.env.SHOW) console.error(files.length, n, rows);
process.exit(0);
