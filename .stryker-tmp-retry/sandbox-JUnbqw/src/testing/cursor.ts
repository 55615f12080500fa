// @ts-nocheck
import { ProblemError } from "./problem";

/**
 * Opaque, endpoint-specific keyset cursors (API document, "Pagination convention"): base64url of a
 * JSON object naming the endpoint and the last key returned, then a check value over it. Never a
 * page number, so a page shifts with inserts instead of repeating or skipping rows. A cursor from
 * another endpoint, one that does not decode, or one the sandbox did not issue (built or edited by a
 * client, which must never construct a cursor) is 400 invalid_cursor, as the service answers it.
 */
export type CursorKey = Record<string, string | number | null>;

export function encodeCursor(endpoint: string, key: CursorKey): string {
  const payload = Buffer.from(JSON.stringify({ e: endpoint, ...key }), "utf8").toString(
    "base64url",
  );
  return `${payload}.${checkValue(payload)}`;
}

export function decodeCursor(endpoint: string, cursor: string | null): CursorKey | undefined {
  if (cursor === null) return undefined;
  const match = /^([A-Za-z0-9_-]+)\.([0-9a-f]{16})$/.exec(cursor);
  if (!match || checkValue(match[1] as string) !== match[2]) throw invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(match[1] as string, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (typeof value !== "object" || value === null || (value as CursorKey).e !== endpoint)
    throw invalidCursor();
  return value as CursorKey;
}

/**
 * Two FNV-1a 32-bit hashes with different offsets, as 16 hex digits: enough to tell a cursor the
 * sandbox issued from one a client built or edited. Not a secret and not a security boundary.
 */
function checkValue(payload: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < payload.length; i++) {
    const c = payload.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

export const invalidCursor = (): ProblemError =>
  new ProblemError(
    400,
    "invalid_cursor",
    "The cursor cannot be used here; restart without a cursor.",
  );
