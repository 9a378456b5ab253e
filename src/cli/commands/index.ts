// Every command the CLI knows, in the order `freezegate --help` lists them. Each is loaded
// only when it runs: a command's module pulls in its adapters (SQLite, git, TOML), and
// loading all of them would cost every run start-up time (docs/performance.md).

import type { CliEntry } from "../command.js";

export interface LazyEntry {
  name: string;
  load(): Promise<CliEntry>;
}

export const COMMANDS: LazyEntry[] = [
  { name: "audit", load: async () => (await import("./audit.js")).auditCommand },
  { name: "check", load: async () => (await import("./check.js")).checkCommand },
  { name: "doctor", load: async () => (await import("./doctor.js")).doctorCommand },
  { name: "init", load: async () => (await import("./init.js")).initCommand },
  { name: "ledger", load: async () => (await import("./ledger.js")).ledgerGroup },
  { name: "freeze", load: async () => (await import("./freeze.js")).freezeCommand },
  { name: "unfreeze", load: async () => (await import("./unfreeze.js")).unfreezeCommand },
  { name: "extend", load: async () => (await import("./extend.js")).extendCommand },
  { name: "impact", load: async () => (await import("./impact.js")).impactCommand },
  { name: "witness", load: async () => (await import("./witness.js")).witnessGroup },
  { name: "deposit", load: async () => (await import("./deposit.js")).depositGroup },
  { name: "lock", load: async () => (await import("./lock.js")).lockCommand },
  { name: "queue", load: async () => (await import("./queue.js")).queueGroup },
  { name: "stats", load: async () => (await import("./stats.js")).statsCommand },
  { name: "calibrate", load: async () => (await import("./calibrate.js")).calibrateCommand },
];

/** Already-loaded entries (tests, embedding) as lazy ones. */
export function eager(entries: readonly CliEntry[]): LazyEntry[] {
  return entries.map((entry) => ({ name: entry.name, load: async () => entry }));
}
