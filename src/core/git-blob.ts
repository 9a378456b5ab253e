// git's object id of a file's content ("blob <size>\0<bytes>", hashed with SHA-1, or SHA-256
// in repositories that use it): lets the audit compare the bytes on disk with the blob a diff
// names, without asking git.

import { createHash } from "node:crypto";

export function gitBlobId(content: Uint8Array, idLength: number): string {
  const hash = createHash(idLength === 64 ? "sha256" : "sha1");
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest("hex");
}
