import { ProblemError } from "./problem";

/**
 * Opaque, endpoint-specific keyset cursors (API document, "Pagination convention"): base64url of a
 * JSON object naming the endpoint and the last key returned. Never a page number, so a page shifts
 * with inserts instead of repeating or skipping rows. A cursor from another endpoint, or one that
 * does not decode, is 400 invalid_cursor.
 */
export type CursorKey = Record<string, string | number | null>;

export function encodeCursor(endpoint: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify({ e: endpoint, ...key }), "utf8").toString("base64url");
}

export function decodeCursor(endpoint: string, cursor: string | null): CursorKey | undefined {
  if (cursor === null) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (typeof value !== "object" || value === null || (value as CursorKey).e !== endpoint)
    throw invalidCursor();
  return value as CursorKey;
}

export const invalidCursor = (): ProblemError =>
  new ProblemError(
    400,
    "invalid_cursor",
    "The cursor cannot be used here; restart without a cursor.",
  );
