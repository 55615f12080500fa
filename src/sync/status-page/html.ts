/**
 * HTML built by one escaping template: every interpolated value is text unless it is itself the
 * result of `html` (a {@link SafeHtml}). Values from the service (an order's project name, a status,
 * an error message) can hold markup; they reach the page as text, never as tags.
 */

/** Markup made by {@link html}: the only kind interpolated without escaping. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `value` as HTML text, safe in element content and in quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** One interpolated value: markup kept, lists joined, null and undefined as nothing, text escaped. */
function part(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(value);
}

/**
 * The template tag: `` html`<td>${order.status}</td>` `` escapes the status. Attribute values must
 * be quoted in the template (an unquoted one could be broken by a space).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += part(value) + (strings[i + 1] as string);
  });
  return new SafeHtml(out);
}
