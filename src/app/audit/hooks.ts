// What a caller may hook into an audit, all in one object: each hook is about time (what the
// run waits for, when the rest is short, when to drop it) and none changes an answer. Why each
// one pays: docs/performance.md.

export interface AuditHooks {
  /**
   * Told which data files are about to be read (absolute paths), before the read: a command
   * on a terminal can say what it is waiting for when they are large.
   */
  onDataFiles?(files: readonly string[]): void;
  /**
   * Called once what is left of the audit is short: when the changed files' rows are read,
   * or, when many files need the statement model, once the verdicts are made. The command
   * line stops optimizing code from then on (src/cli/speed.ts).
   */
  onLongLoopsDone?(): void;
  /**
   * Asked between the audit's first steps; true abandons the run (it rejects with
   * AuditAbandoned). The command line starts an audit from a guessed root and drops it this
   * way as soon as git names another.
   */
  abandonIf?(): boolean;
}

/**
 * Changed files needing the statement model beyond which the verdicts are not "short" (see
 * onLongLoopsDone). The bench's 30-line patch has 10 such files, its 900-line patch about 300.
 */
const MODELLED_FILES_FOR_SHORT_REST = 32;

/**
 * Whether what is left once the changed files' rows are read is short: it is unless many
 * files need the statement model (a changed statement no test ran), each tokenized and parsed,
 * which pays for optimized code.
 */
export function restIsShort(modelledFiles: number): boolean {
  return modelledFiles <= MODELLED_FILES_FOR_SHORT_REST;
}

/** A run its caller abandoned (see AuditHooks.abandonIf): no answer, only a signal. */
export class AuditAbandoned extends Error {}

/**
 * Between two synchronous steps: the event loop gets a turn, so that git's output is read and
 * the next git command started (without it git stalls on a full pipe while the data is read);
 * then the run ends here if its caller abandons it.
 */
export async function betweenSteps(hooks: AuditHooks): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (hooks.abandonIf?.()) throw new AuditAbandoned();
}
