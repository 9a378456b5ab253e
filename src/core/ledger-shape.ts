// The shape gate: every freeze must be a reviewable record — all fields
// present, real dates, not expired, within the policy's window, listed once, and naming tests
// the suite really has. Pure bookkeeping over the ledger; every problem is an error, because
// a warning on a freeze leaves the merge button green (an expired freeze fails the build).

import { daysBetween, isDay } from "./dates.js";
import { isCollected } from "./deposits.js";
import type { Finding, FindingCode } from "./findings.js";
import { globToRegExp } from "./frozen.js";
import { FREEZE_REQUIRED_TEXT, type Freeze, type Ledger, type Property } from "./ledger-model.js";

export interface ShapeOptions {
  /** The day the gate judges expiry against (YYYY-MM-DD, UTC). */
  today: string;
  /** Test ids the suite has; null when unknown (then unknown-test is not judged). */
  knownTests: ReadonlySet<string> | null;
}

export function checkShape(ledger: Ledger, opts: ShapeOptions): Finding[] {
  if (!isDay(opts.today)) throw new RangeError(`checkShape: today "${opts.today}" is not a day`);
  const known = opts.knownTests === null ? null : knownIds(opts.knownTests);
  return [
    ...ledger.freezes.flatMap((freeze, index) => {
      const subject = freezeSubject(freeze, index);
      return [
        ...missingFreezeFields(freeze, ledger.policy.require_approval, subject),
        ...freezeDateFindings(freeze, ledger.policy.max_window_days, opts.today, subject),
        ...(known === null ? [] : unknownFreezeTests(freeze, known, subject)),
      ];
    }),
    ...duplicateFreezes(ledger.freezes),
    ...ledger.properties.flatMap((property, index) =>
      propertyFindings(property, index, opts.knownTests),
    ),
  ];
}

/** How a finding names what it is about: its name in the message, and its id fields. */
interface Subject {
  name: string;
  about: Partial<Finding>;
}

function shapeFinding(
  code: FindingCode,
  message: string,
  subject: Pick<Subject, "about">,
  details: Record<string, unknown>,
): Finding {
  const { about } = subject;
  return {
    gate: "shape",
    code,
    severity: "error",
    message,
    ...about,
    details: { ...about.details, ...details },
  };
}

function freezeSubject(freeze: Freeze, index: number): Subject {
  return {
    name: freezeName(freeze, index),
    about: freeze.test_id.trim() === "" ? { details: { index } } : { testId: freeze.test_id },
  };
}

/** The fields a freeze leaves blank; an approver is required only by policy. */
function missingFreezeFields(
  freeze: Freeze,
  requireApproval: boolean,
  subject: Subject,
): Finding[] {
  const missing: string[] = FREEZE_REQUIRED_TEXT.filter((field) => freeze[field].trim() === "");
  // An approver that is written down must name someone.
  if (freeze.approved_by !== undefined ? freeze.approved_by.trim() === "" : requireApproval) {
    missing.push("approved_by");
  }
  if (missing.length === 0) return [];
  return [
    shapeFinding("missing-field", `${subject.name} has no ${missing.join(", ")}`, subject, {
      fields: missing,
    }),
  ];
}

/**
 * What is wrong with a freeze's dates: not real days, opened in the future, expiring before
 * opening, expired, or a window longer than the policy's.
 */
function freezeDateFindings(
  freeze: Freeze,
  maxWindow: number,
  today: string,
  subject: Subject,
): Finding[] {
  const { name } = subject;
  const findings: Finding[] = [];
  const opened = freeze.opened.trim() === "" ? null : freeze.opened;
  const expires = freeze.expires.trim() === "" ? null : freeze.expires;
  const dates: Array<[string, string | null]> = [
    ["opened", opened],
    ["expires", expires],
  ];
  for (const [field, value] of dates) {
    if (value === null || isDay(value)) continue;
    findings.push(
      shapeFinding(
        "bad-date",
        `${name} has ${field} "${value}", which is not a real YYYY-MM-DD day`,
        subject,
        { field, value },
      ),
    );
  }
  const openedOk = opened !== null && isDay(opened);
  const expiresOk = expires !== null && isDay(expires);
  if (openedOk && daysBetween(today, opened) > 0) {
    // A freeze dated in the future is in force now but its window starts later: it would
    // stretch the real window past the policy's limit.
    findings.push(
      shapeFinding(
        "bad-date",
        `${name} opens in the future (${opened}; today is ${today})`,
        subject,
        {
          field: "opened",
          value: opened,
        },
      ),
    );
  }
  if (openedOk && expiresOk && daysBetween(opened, expires) < 0) {
    findings.push(
      shapeFinding(
        "bad-date",
        `${name} expires (${expires}) before it opened (${opened})`,
        subject,
        {
          field: "expires",
          value: expires,
        },
      ),
    );
  }
  if (expiresOk && daysBetween(expires, today) > 0) {
    findings.push(
      shapeFinding(
        "expired",
        `${name} expired on ${expires} (today is ${today}): re-attest it or remove it`,
        subject,
        { expires, today },
      ),
    );
  }
  if (openedOk && expiresOk) {
    const window = daysBetween(opened, expires);
    if (window > maxWindow) {
      findings.push(
        shapeFinding(
          "window-exceeded",
          `${name} runs ${window} days (${opened} to ${expires}), more than the policy's ${maxWindow}`,
          subject,
          { days: window, max: maxWindow },
        ),
      );
    }
  }
  return findings;
}

/**
 * The frozen test and the compensating property a freeze names that the suite does not have.
 * A property is one test that must run, named by its id; only a parametrized one may be named
 * without its parameters, standing for its cases as the deposit gate and the plugin read it
 * (docs/samples-artifact.md). A glob names no test there.
 */
function unknownFreezeTests(freeze: Freeze, known: KnownIds, subject: Subject): Finding[] {
  const ids: [string, string][] = [
    ["test_id", freeze.test_id],
    ["compensating_property", freeze.compensating_property],
  ];
  return ids.flatMap(([field, id]) => {
    if (id.trim() === "") return [];
    if (field === "test_id" ? known.frozen(id) : isCollected(id, known.ids)) return [];
    const what = field === "test_id" ? "frozen test" : "compensating property";
    return [
      shapeFinding(
        "unknown-test",
        `${subject.name}: the ${what} ${id} is not a test the suite has${field === "test_id" ? "" : globHint(id)}`,
        subject,
        { field, id },
      ),
    ];
  });
}

/** A test frozen by more than one entry. */
function duplicateFreezes(freezes: readonly Freeze[]): Finding[] {
  const counts = new Map<string, number>();
  for (const freeze of freezes) {
    if (freeze.test_id.trim() === "") continue;
    counts.set(freeze.test_id, (counts.get(freeze.test_id) ?? 0) + 1);
  }
  return [...counts].flatMap(([testId, count]) =>
    count > 1
      ? [
          shapeFinding(
            "duplicate-freeze",
            `${testId} is frozen ${count} times; keep one entry`,
            { about: { testId } },
            { count },
          ),
        ]
      : [],
  );
}

/** A property's blank fields, and the check and witnesses it names that the suite lacks. */
function propertyFindings(
  property: Property,
  index: number,
  knownTests: ReadonlySet<string> | null,
): Finding[] {
  const subject: Subject = {
    name: property.id.trim() === "" ? `property #${index + 1}` : `property ${property.id}`,
    about: property.id.trim() === "" ? { details: { index } } : { propertyId: property.id },
  };
  const findings: Finding[] = [];
  const missing = (["id", "check"] as const).filter((f) => property[f].trim() === "");
  if (missing.length > 0) {
    findings.push(
      shapeFinding("missing-field", `${subject.name} has no ${missing.join(", ")}`, subject, {
        fields: missing,
      }),
    );
  }
  if (knownTests === null) return findings;
  const refs: [string, string][] = [
    ["check", property.check],
    ...[...new Set(property.witnessed_by)].map((w): [string, string] => ["witnessed_by", w]),
  ];
  for (const [field, id] of refs) {
    if (id.trim() === "" || knownTests.has(id)) continue;
    const what = field === "check" ? "check" : "witness";
    findings.push(
      shapeFinding(
        "unknown-test",
        `${subject.name}: its ${what} ${id} is not a test the suite has${globHint(id)}`,
        subject,
        { field, id },
      ),
    );
  }
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

interface KnownIds {
  ids: ReadonlySet<string>;
  /** Whether a frozen entry names a test the suite has (see below). */
  frozen: (id: string) => boolean;
}

/**
 * The suite's tests, and for a frozen entry: exact ids, plus the frozen-list glob, matched by
 * the audit's own rule (globToRegExp): a glob is known when it matches a known test.
 */
function knownIds(known: ReadonlySet<string>): KnownIds {
  return {
    ids: known,
    frozen: (id) => {
      if (known.has(id)) return true;
      if (!id.includes("*")) return false;
      const re = globToRegExp(id);
      for (const candidate of known) if (re.test(candidate)) return true;
      return false;
    },
  };
}
