#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/*.js) into dist/bin/. Node 20's ES module loader costs
// about a millisecond per module file, and the CLI has dozens.
//
//   freezegate.cjs  the binary: a few lines that pick one of the two below by the first argument
//   audit.cjs       `freezegate audit` alone, in one CommonJS file (what CI runs on every patch)
//   cli.mjs         every command, each in a chunk loaded only when it runs (chunks/)
//
// Why CommonJS for audit: Node 20 starts a CommonJS program about 15 ms sooner than an ES
// module one (no ES module loader to set up), and one file instead of a dozen chunks saves
// about 10 ms more. The bundle is the same code; only import.meta.url needs a stand-in.
//
// better-sqlite3 stays external in the full CLI (it loads a native addon).

import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

// Chunk names carry content hashes: without this, every rebuild would leave the previous
// build's chunks behind.
rmSync("dist/bin", { recursive: true, force: true });

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  external: ["better-sqlite3"],
  outExtension: { ".js": ".mjs" },
  sourcemap: true,
  logLevel: "warning",
  legalComments: "none",
};

await build({
  ...common,
  format: "esm",
  entryPoints: { cli: "dist/cli/main.js" },
  outdir: "dist/bin",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});

// No splitting: the audit entry imports no other command, so nothing else lands in it.
// better-sqlite3's JavaScript is bundled too (a dozen CommonJS files, ~12 ms to load one by
// one); its addon stays where it was installed (coverage-sqlite.ts passes its path).
await build({
  ...common,
  external: ["bindings"],
  format: "cjs",
  entryPoints: { audit: "dist/cli/main-audit.js" },
  outdir: "dist/bin",
  outExtension: { ".js": ".cjs" },
  define: { "import.meta.url": "__freezegateModuleUrl" },
  banner: {
    js: '"use strict";\nconst __freezegateModuleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
});

writeFileSync(
  "dist/bin/freezegate.cjs",
  `#!/usr/bin/env node
"use strict";
// The freezegate binary (written by scripts/bundle.mjs): \`freezegate audit\` runs from one
// CommonJS file, every other command from the full ES module CLI.
if (process.argv[2] === "audit") {
  require("./audit.cjs");
} else {
  import("./cli.mjs").catch((error) => {
    process.stderr.write(\`freezegate: internal error: \${String(error)}\\n\`);
    process.exitCode = 2;
  });
}
`,
);
chmodSync("dist/bin/freezegate.cjs", 0o755);
