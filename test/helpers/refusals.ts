// Refusals as units see them: the error a function throws, matched by its stable code (and,
// where a test names it, a field of its message), not by a whole sentence.

import { expect } from "vitest";

/** Matches a thrown refusal with `code`, whose message holds `message` when one is given. */
export function refusedWith(code: string, message?: string | RegExp) {
  return expect.objectContaining({
    code,
    ...(message === undefined
      ? {}
      : {
          message:
            typeof message === "string"
              ? expect.stringContaining(message)
              : expect.stringMatching(message),
        }),
  });
}
