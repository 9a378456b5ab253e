// Names the main process (reporter.mjs, ledger.mjs) and the workers (runner.mjs,
// ledger-runner.mjs) share: the provided-context key of the ledger, and the file task's meta
// key of what the ledger did in a test file.

export const PROVIDE_KEY = "freezegate";
export const LEDGER_META_KEY = "freezegateLedger";
