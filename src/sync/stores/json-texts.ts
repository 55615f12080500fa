import type { NewChange } from "../types";

/** The fields of a change stored in columns of their own, left out of its payload. */
const COLUMNS = new Set(["type", "orderNumber", "siteId", "observedAt", "cause", "snapshot"]);

/**
 * JSON text of one order's row and of its changes' payloads, each row serialised once: a change
 * carries the same order, line or shipment object its row holds (`order.added`, `item.added`), so
 * the payload reuses that object's text instead of serialising it again. Every text is what
 * `JSON.stringify` gives (the payload: of `changePayload(change)`).
 */
export class JsonTexts {
  readonly #texts = new Map<object, string>();

  /** `JSON.stringify(value)`, an object's text kept for the payloads that carry it. */
  of(value: unknown): string {
    if (typeof value !== "object" || value === null) return JSON.stringify(value);
    let text = this.#texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      this.#texts.set(value, text);
    }
    return text;
  }

  /** `JSON.stringify(rows)` for a list of rows, each row's text kept; null stays null. */
  list(rows: readonly object[] | null): string | null {
    if (rows === null) return null;
    let text = "[";
    for (let i = 0; i < rows.length; i++) {
      // A row is an object; anything else in the list is written as JSON writes it there.
      const row = rows[i];
      const part = typeof row === "object" && row !== null ? this.of(row) : JSON.stringify(row);
      text += `${i ? "," : ""}${part ?? "null"}`;
    }
    return `${text}]`;
  }

  /** `JSON.stringify(changePayload(change))`, the rows it carries written from their kept text. */
  payload(change: NewChange): string {
    const fields = change as unknown as Record<string, unknown>;
    let text = "{";
    for (const key of Object.keys(fields)) {
      if (COLUMNS.has(key)) continue;
      const value = fields[key];
      // What JSON.stringify leaves out of an object.
      if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
      text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${this.of(value)}`;
    }
    return `${text}}`;
  }
}
