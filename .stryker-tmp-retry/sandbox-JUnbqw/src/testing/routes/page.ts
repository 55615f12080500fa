// @ts-nocheck
import { type CursorKey, decodeCursor, encodeCursor, invalidCursor } from "../cursor";

/**
 * One keyset page: rows after the cursor's key, `limit` of them, and a cursor for the last row when
 * more rows follow (API document, "Pagination convention"). `keyOf` gives a row's key and `after`
 * says whether a row sorts after a decoded key.
 */
export function keysetPage<T>(
  endpoint: string,
  rows: readonly T[],
  cursor: string | null,
  limit: number,
  keyOf: (row: T) => CursorKey,
  after: (row: T, key: CursorKey) => boolean,
  scope: CursorKey = {},
): { data: T[]; nextCursor: string | null } {
  const key = decodeCursor(endpoint, cursor);
  if (key) {
    // A cursor names the resource it pages (an order's items are not another order's).
    for (const [name, value] of Object.entries(scope)) {
      if (key[name] !== value) throw invalidCursor();
    }
  }
  const start = key ? rows.findIndex((row) => after(row, key)) : 0;
  const from = start < 0 ? rows.length : start;
  const data = rows.slice(from, from + limit);
  const last = data[data.length - 1];
  const more = from + limit < rows.length;
  return {
    data,
    nextCursor:
      more && last !== undefined ? encodeCursor(endpoint, { ...scope, ...keyOf(last) }) : null,
  };
}
