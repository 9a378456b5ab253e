// Errors that stop a run. A failed gate is a finding, never an exception: these are only for
// runs that cannot happen (bad usage, unreadable input, git trouble, our own bugs). The CLI
// boundary turns each into one line on stderr and an exit code; nothing here prints.

export interface ErrorDetails {
  /** What the user should do about it, in one short clause. */
  fix?: string;
  cause?: unknown;
  /** The refusal's stable code (src/core/refusals, docs/refusals.md); set by `refusal()`. */
  code?: string;
}

/** Base class: a known, user-facing error. `exitCode` is 2 for every user/input problem. */
export class FreezegateError extends Error {
  readonly fix: string | undefined;
  /** A stable, searchable kebab-case code, listed in docs/refusals.md. */
  readonly code: string | undefined;
  readonly exitCode: number = 2;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.fix = details.fix;
    this.code = details.code;
  }
}

/** Bad flags, unknown command, conflicting options. */
export class UsageError extends FreezegateError {}

/** Configuration (pyproject.toml / package.json / ledger policy) is malformed or unknown. */
export class ConfigError extends FreezegateError {}

/** Input data (coverage data, frozen list, diff, ledger) is missing, corrupt or unusable. */
export class InputError extends FreezegateError {}

/** git failed or the repository cannot answer the question (shallow clone, unknown base). */
export class GitError extends FreezegateError {}

/** The Node.js freezegate runs on cannot do what the run needs (no node:sqlite, say). */
export class EnvironmentError extends FreezegateError {}

/** A bug in freezegate itself; reported as such, with the cause. */
export class InternalError extends FreezegateError {}

/** One line for stderr: the cause, then the fix. */
export function formatError(error: FreezegateError): string {
  const message = error.message.replace(/\s*\n\s*/g, " ").trim();
  return error.fix ? `${message} (fix: ${error.fix})` : message;
}

/**
 * The same refusal in other words (a path shown as the user gave it, say): the same class,
 * code and fix, with `error` as its cause, so that no caller loses the code it searches for.
 */
export function reworded(error: FreezegateError, message: string): FreezegateError {
  const Kind = error.constructor as new (message: string, details: ErrorDetails) => FreezegateError;
  return new Kind(message, { fix: error.fix, code: error.code, cause: error });
}
