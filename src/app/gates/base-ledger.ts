// Which ledger at the merge base a patch's ledger is compared with: the file at the same path,
// or the one the merge base's own config names when the patch moves the ledger, and the
// ledger at any commit read as a value.

import { isAbsolute, posix } from "node:path";
import { CONFIG_FILES, configFromTexts } from "../../adapters/config-files.js";
import { fileAtRevision, readBlobs } from "../../adapters/git-history.js";
import { FreezegateError } from "../../core/errors.js";
import { parseJsonText } from "../../core/json-text.js";
import { parseLedger, stricterPolicy } from "../../core/ledger.js";
import { DEFAULT_LEDGER_PATH, DEFAULT_POLICY, type Ledger } from "../../core/ledger-model.js";
import { repoPath } from "./ledger-location.js";

export function parseLedgerText(text: string, label: string, fix?: string): Ledger {
  return parseLedger(parseJsonText(text, `ledger ${label}`, fix), label);
}

/** The ledger at a commit (BOM skipped, as on disk); null when absent; throws when unparsable. */
export async function readLedgerAt(
  root: string,
  rev: string,
  path: string,
): Promise<Ledger | null> {
  const bytes = await fileAtRevision(root, rev, path);
  if (bytes === null) return null;
  return parseLedgerText(bytes.toString("utf8"), `${path} at ${rev.slice(0, 12)}`);
}

/** The ledger at a commit: parsed, null when absent, "unreadable" when it does not parse. */
async function ledgerAt(
  root: string,
  rev: string,
  path: string,
): Promise<Ledger | null | "unreadable"> {
  try {
    return await readLedgerAt(root, rev, path);
  } catch (error) {
    if (error instanceof FreezegateError) return "unreadable";
    throw error;
  }
}

/**
 * Where the merge base kept its ledger, for a ledger at `rel` now: `here` when the merge base
 * has a file at `rel`; `configured`, the path the merge base's own config puts its ledger at
 * (its "ledger" key, else the default path) when it is another path and a file is there. So a
 * patch that moves the ledger and re-points the key, even at a file the merge base already
 * had (an example ledger), is still judged by the ledger it replaces. "unknown": the merge
 * base's config does not parse.
 */
async function baseLedgerPaths(
  root: string,
  mergeBase: string,
  rel: string,
): Promise<{ here: boolean; configured: string | null | "unknown" }> {
  const [atRel, pyproject, packageJson] = await readBlobs(
    root,
    [rel, ...CONFIG_FILES].map((path) => ({ rev: mergeBase, path })),
  );
  const here = atRel !== null && atRel !== undefined;
  let configured: unknown;
  try {
    configured = configFromTexts({
      pyproject: { path: `pyproject.toml at ${mergeBase.slice(0, 12)}`, text: textOf(pyproject) },
      packageJson: { path: `package.json at ${mergeBase.slice(0, 12)}`, text: textOf(packageJson) },
    }).values.ledger;
  } catch (error) {
    if (error instanceof FreezegateError) return { here, configured: "unknown" };
    throw error;
  }
  const then =
    typeof configured !== "string"
      ? DEFAULT_LEDGER_PATH
      : isAbsolute(configured)
        ? repoPath(root, configured)
        : posix.normalize(configured.split("\\").join("/"));
  if (then === null || then === rel || then.startsWith("../") || then === "..") {
    return { here, configured: null };
  }
  const exists = (await fileAtRevision(root, mergeBase, then)) !== null;
  return { here, configured: exists ? then : null };
}

function textOf(bytes: Buffer | null | undefined): string | null {
  return bytes ? bytes.toString("utf8") : null;
}

/**
 * The ledger at the merge base that `rel` replaces (see baseLedgerPaths), and where it was:
 * the file at `rel` when there is one, judged with the stricter of its policy and that of the
 * ledger the merge base's config names (`stricterFrom`: that ledger's path, when its policy
 * took part); else the latter.
 */
export async function baseLedger(
  root: string,
  mergeBase: string,
  rel: string,
): Promise<{ path: string; ledger: Ledger | null | "unreadable"; stricterFrom: string | null }> {
  const { here, configured } = await baseLedgerPaths(root, mergeBase, rel);
  if (!here) {
    if (configured === "unknown") return { path: rel, ledger: "unreadable", stricterFrom: null };
    if (configured === null) return { path: rel, ledger: null, stricterFrom: null };
    return {
      path: configured,
      ledger: await ledgerAt(root, mergeBase, configured),
      stricterFrom: null,
    };
  }
  const ledger = await ledgerAt(root, mergeBase, rel);
  if (configured === null || ledger === null || ledger === "unreadable") {
    return { path: rel, ledger, stricterFrom: null };
  }
  const other =
    configured === "unknown" ? "unreadable" : await ledgerAt(root, mergeBase, configured);
  const floor = other === null ? null : other === "unreadable" ? DEFAULT_POLICY : other.policy;
  if (floor === null) return { path: rel, ledger, stricterFrom: null };
  return {
    path: rel,
    ledger: { ...ledger, policy: stricterPolicy(floor, ledger.policy).policy },
    stricterFrom: configured === "unknown" ? null : configured,
  };
}

/** Notes for a ledger compared with, or judged by, one at another path at the merge base. */
export function movedNote(
  rel: string,
  base: { path: string; stricterFrom: string | null },
): string[] {
  if (base.path !== rel) {
    return [`the ledger moved: ${rel} is compared with ${base.path} at the merge base`];
  }
  return base.stricterFrom === null
    ? []
    : [
        `the merge base's config names ${base.stricterFrom} as its ledger: ${rel} is judged with the stricter of both policies at the merge base`,
      ];
}
