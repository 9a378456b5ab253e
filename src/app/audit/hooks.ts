// What the audit's callers may hook into between its steps.

/** A run its caller abandoned (see AuditRequest.abandonIf): no answer, only a signal. */
export class AuditAbandoned extends Error {}

/**
 * Give the event loop a turn between synchronous phases: git's output is read, and the next
 * git command started, only then. Without it git stalls on a full pipe while the data is read.
 */
export function letGitRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
