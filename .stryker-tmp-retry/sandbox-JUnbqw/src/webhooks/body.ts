/**
 * The raw body of a delivery. The signature covers the exact bytes the platform sent (API document,
 * "Signing", rule 1), so only raw forms are accepted: a parsed object cannot be turned back into
 * those bytes.
 */
// @ts-nocheck

export type WebhookBody = string | Uint8Array | ArrayBuffer;

export const encoder = new TextEncoder();

/** The bytes of a raw body (a string counts as its UTF-8 bytes); `undefined` when `body` is not raw. */
export function rawBodyBytes(body: unknown): Uint8Array<ArrayBufferLike> | undefined {
  if (typeof body === "string") return encoder.encode(body);
  // ArrayBuffer.isView and the tag check also hold for buffers made in another realm (a vm context,
  // a worker), where `instanceof` would not.
  if (ArrayBuffer.isView(body))
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (Object.prototype.toString.call(body) === "[object ArrayBuffer]") {
    return new Uint8Array(body as ArrayBuffer);
  }
  return undefined;
}

/** Why `body` is not raw, and what to pass instead: the one sentence every refusal uses. */
export function notRawBodyMessage(body: unknown): string {
  return (
    `The webhook body was given as ${body == null ? body : `a parsed ${Array.isArray(body) ? "array" : typeof body}`}, ` +
    "not as the raw request body whose exact bytes the signature covers: pass it as a string, " +
    'Buffer/Uint8Array or ArrayBuffer (with Express, mount express.raw({ type: "application/json" }) ' +
    "on the webhook route)."
  );
}
