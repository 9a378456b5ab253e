// How one refusal is written down: its kind (the error class, hence the exit code), its message
// as a function of the few values it names, and its fix. The tables beside this file hold one
// entry per stable code; index.ts combines them into the one registry `refusal()` reads.

import {
  ConfigError,
  EnvironmentError,
  type FreezegateError,
  GitError,
  InputError,
  UsageError,
} from "../errors.js";

export const KINDS = {
  usage: UsageError,
  config: ConfigError,
  input: InputError,
  git: GitError,
  environment: EnvironmentError,
} as const satisfies Record<string, new (...args: never[]) => FreezegateError>;
export type RefusalKind = keyof typeof KINDS;

export interface Refusal<V> {
  readonly kind: RefusalKind;
  readonly message: (values: V) => string;
  readonly fix: ((values: V) => string) | undefined;
}

/** Any table entry, whatever values it takes. */
export type AnyRefusal = Refusal<never>;

/** A table of one area: code -> refusal. */
export type RefusalTable = Readonly<Record<string, AnyRefusal>>;

type Fix<V> = string | ((values: V) => string);

function entry(kind: RefusalKind) {
  return <V = void>(message: (values: V) => string, fix?: Fix<V>): Refusal<V> => ({
    kind,
    message,
    fix: typeof fix === "string" ? () => fix : fix,
  });
}

/** Bad flags, unknown command, conflicting options (UsageError). */
export const usage = entry("usage");
/** Configuration or ledger policy malformed or unknown (ConfigError). */
export const config = entry("config");
/** Input data missing, corrupt or unusable (InputError). */
export const input = entry("input");
/** git failed or cannot answer (GitError). */
export const git = entry("git");
/** The Node.js freezegate runs on cannot do what the run needs (EnvironmentError). */
export const environment = entry("environment");
