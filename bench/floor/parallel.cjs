// Run in a bench workload directory (bench/work/large-30/lines after `npm run bench`):
//   node bench/floor/parallel.cjs   (npm run bench times it beside freezegate's runs)
// Floor D: what C does, with git running in its own process while the data is read (as the
// audit runs it): node start, the diff, node:sqlite open, the context table's summary, the
// changed files' rows packed one value per file, decoded by nothing. An audit that reads the
// data so cannot be faster than this on the same machine and Node.js.
const { spawn } = require("node:child_process");
const git = spawn("git", ["diff", "--no-color", "--no-ext-diff", "-U0", "base...HEAD"]);
const chunks = [];
git.stdout.on("data", (c) => chunks.push(c));
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(".coverage", { readOnly: true });
db.exec("PRAGMA cache_size = -128");
db.prepare(
  "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi, sum(context GLOB '*|run') AS run FROM context",
).get();
const ids = db.prepare("SELECT path, id FROM file").all();
const q = db.prepare(
  `SELECT count(*) AS rows, CAST(group_concat(context_id || ',' || length(CAST(numbits AS BLOB)) || ',' || CAST(numbits AS BLOB), '') AS BLOB) AS packed FROM line_bits WHERE file_id = ?`,
);
git.on("close", (code) => {
  if (code !== 0) throw new Error("git");
  const diff = Buffer.concat(chunks).toString("utf8");
  const files = [...diff.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((m) => m[1]);
  let rows = 0;
  for (const { path, id } of ids)
    if (files.some((f) => path === f || path.endsWith(`/${f}`))) rows += q.get(id).rows;
  if (process.env.SHOW) console.error(files.length, rows);
  process.exit(0);
});
