// The shape gate: every freeze must be a reviewable record — all fields
// present, real dates, not expired, within the policy's window, listed once, and naming tests
// the suite really has. Pure bookkeeping over the ledger; every problem is an error, because
// a warning on a freeze leaves the merge button green (an expired freeze fails the build).

import { daysBetween, isDay } from "./dates.js";
import { isCollected } from "./deposits.js";
import type { Finding, FindingCode } from "./findings.js";
import { FREEZE_REQUIRED_TEXT, type Freeze, type Ledger } from "./ledger-model.js";

export interface ShapeOptions {
  /** The day the gate judges expiry against (YYYY-MM-DD, UTC). */
  today: string;
  /** Test ids the suite has; null when unknown (then unknown-test is not judged). */
  knownTests: ReadonlySet<string> | null;
}

export function checkShape(ledger: Ledger, opts: ShapeOptions): Finding[] {
  if (!isDay(opts.today)) throw new RangeError(`checkShape: today "${opts.today}" is not a day`);
  const findings: Finding[] = [];
  const add = (code: FindingCode, message: string, extra: Partial<Finding> = {}) => {
    findings.push({ gate: "shape", code, severity: "error", message, ...extra });
  };
  const max = ledger.policy.max_window_days;
  const known = opts.knownTests === null ? null : knownMatcher(opts.knownTests);
  // A property is one test that must run, named by its id; only a parametrized one may be
  // named without its parameters, standing for its cases as the deposit gate and the plugin
  // read it (docs/samples-artifact.md). A glob names no test there.
  const knownProperty = (id: string): boolean =>
    opts.knownTests !== null && isCollected(id, opts.knownTests);

  ledger.freezes.forEach((freeze, index) => {
    const name = freezeName(freeze, index);
    const about: Partial<Finding> =
      freeze.test_id.trim() === "" ? { details: { index } } : { testId: freeze.test_id };

    const missing: string[] = FREEZE_REQUIRED_TEXT.filter((field) => freeze[field].trim() === "");
    // An approver that is written down must name someone; one is required only by policy.
    if (
      freeze.approved_by !== undefined
        ? freeze.approved_by.trim() === ""
        : ledger.policy.require_approval
    ) {
      missing.push("approved_by");
    }
    if (missing.length > 0) {
      add("missing-field", `${name} has no ${missing.join(", ")}`, {
        ...about,
        details: { ...about.details, fields: missing },
      });
    }

    const opened = freeze.opened.trim() === "" ? null : freeze.opened;
    const expires = freeze.expires.trim() === "" ? null : freeze.expires;
    const badDates = [
      ["opened", opened],
      ["expires", expires],
    ].filter(([, value]) => value !== null && !isDay(value as string));
    for (const [field, value] of badDates) {
      add("bad-date", `${name} has ${field} "${value}", which is not a real YYYY-MM-DD day`, {
        ...about,
        details: { ...about.details, field, value },
      });
    }
    const openedOk = opened !== null && isDay(opened);
    const expiresOk = expires !== null && isDay(expires);

    if (openedOk && daysBetween(opts.today, opened) > 0) {
      // A freeze dated in the future is in force now but its window starts later: it would
      // stretch the real window past the policy's limit.
      add("bad-date", `${name} opens in the future (${opened}; today is ${opts.today})`, {
        ...about,
        details: { ...about.details, field: "opened", value: opened },
      });
    }
    if (openedOk && expiresOk && daysBetween(opened, expires) < 0) {
      add("bad-date", `${name} expires (${expires}) before it opened (${opened})`, {
        ...about,
        details: { ...about.details, field: "expires", value: expires },
      });
    }
    if (expiresOk && daysBetween(expires, opts.today) > 0) {
      add(
        "expired",
        `${name} expired on ${expires} (today is ${opts.today}): re-attest it or remove it`,
        { ...about, details: { ...about.details, expires, today: opts.today } },
      );
    }
    if (openedOk && expiresOk) {
      const window = daysBetween(opened, expires);
      if (window > max) {
        add(
          "window-exceeded",
          `${name} runs ${window} days (${opened} to ${expires}), more than the policy's ${max}`,
          { ...about, details: { ...about.details, days: window, max } },
        );
      }
    }

    if (known) {
      const ids: [string, string][] = [
        ["test_id", freeze.test_id],
        ["compensating_property", freeze.compensating_property],
      ];
      for (const [field, id] of ids) {
        if (id.trim() === "") continue;
        if (field === "test_id" ? known(id) : knownProperty(id)) continue;
        const what = field === "test_id" ? "frozen test" : "compensating property";
        add(
          "unknown-test",
          `${name}: the ${what} ${id} is not a test the suite has${field === "test_id" ? "" : globHint(id)}`,
          {
            ...about,
            details: { ...about.details, field, id },
          },
        );
      }
    }
  });

  const counts = new Map<string, number>();
  for (const freeze of ledger.freezes) {
    if (freeze.test_id.trim() === "") continue;
    counts.set(freeze.test_id, (counts.get(freeze.test_id) ?? 0) + 1);
  }
  for (const [testId, count] of counts) {
    if (count > 1) {
      add("duplicate-freeze", `${testId} is frozen ${count} times; keep one entry`, {
        testId,
        details: { count },
      });
    }
  }

  ledger.properties.forEach((property, index) => {
    const name = property.id.trim() === "" ? `property #${index + 1}` : `property ${property.id}`;
    const about: Partial<Finding> =
      property.id.trim() === "" ? { details: { index } } : { propertyId: property.id };
    const missing = (["id", "check"] as const).filter((f) => property[f].trim() === "");
    if (missing.length > 0) {
      add("missing-field", `${name} has no ${missing.join(", ")}`, {
        ...about,
        details: { ...about.details, fields: missing },
      });
    }
    if (!known) return;
    const refs: [string, string][] = [
      ["check", property.check],
      ...[...new Set(property.witnessed_by)].map((w): [string, string] => ["witnessed_by", w]),
    ];
    for (const [field, id] of refs) {
      if (id.trim() === "" || opts.knownTests?.has(id)) continue;
      const what = field === "check" ? "check" : "witness";
      add("unknown-test", `${name}: its ${what} ${id} is not a test the suite has${globHint(id)}`, {
        ...about,
        details: { ...about.details, field, id },
      });
    }
  });

  return findings;
}

/** Said of an unknown id with "*": a glob is accepted only where a freeze names its tests. */
function globHint(id: string): string {
  return id.includes("*") ? " (a glob names no test here: list the test ids)" : "";
}

function freezeName(freeze: Freeze, index: number): string {
  return freeze.test_id.trim() === ""
    ? `freeze #${index + 1} (no test_id)`
    : `the freeze of ${freeze.test_id}`;
}

/**
 * Exact ids, plus the frozen-list glob ("*" = any run of characters, everything else literal;
 * the same rule as the audit's frozen reader): a glob is known when it matches a known test.
 */
function knownMatcher(known: ReadonlySet<string>): (id: string) => boolean {
  return (id) => {
    if (known.has(id)) return true;
    if (!id.includes("*")) return false;
    const body = id
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    const re = new RegExp(`^${body}$`, "s");
    for (const candidate of known) if (re.test(candidate)) return true;
    return false;
  };
}
