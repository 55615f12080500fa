// @ts-nocheck
import { encoder, notRawBodyMessage, rawBodyBytes } from "./body";

/**
 * The `v1` signature of a delivery (API document, "Signing"): HMAC-SHA256 keyed with the signing
 * secret over `<t>.<raw body bytes>`, lowercase hex. Web Crypto, so it runs on Node, Deno, Bun and
 * edge workers alike.
 */
export async function computeSignature(
  secret: string,
  t: number | string,
  body: string | Uint8Array | ArrayBuffer,
): Promise<string> {
  const bytes = rawBodyBytes(body);
  if (!bytes) throw new TypeError(notRawBodyMessage(body));
  const digest = await hmacSha256(secret, signedPayload(t, bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The bytes the `v1` HMAC covers: `<t>` + `.` + the raw body bytes (API document, "Signing"). */
export function signedPayload(t: number | string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${t}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return message;
}

/** Raw HMAC-SHA256 digest (32 bytes) of `message` keyed with `secret`, via Web Crypto. */
export async function hmacSha256(
  secret: string,
  message: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

/** Options of {@link signWebhook}. */
export interface SignWebhookOptions {
  /**
   * Unix seconds to sign with: an old one tests a handler's refusal of replays
   * (`timestamp_out_of_tolerance`).
   * @default the current time
   */
  t?: number;
}

/**
 * A valid `Platform-Signature` header value (`t=<unix>,v1=<hex>`) for `body`, so partners can test
 * their own webhook handlers.
 *
 * @example
 * const header = await signWebhook(JSON.stringify(event), "whsec_test");
 * await fetch(url, { method: "POST", body, headers: { "Platform-Signature": header } });
 */
export async function signWebhook(
  body: string | Uint8Array | ArrayBuffer,
  secret: string,
  options: SignWebhookOptions = {},
): Promise<string> {
  const t = options.t ?? Math.floor(Date.now() / 1000);
  return `t=${t},v1=${await computeSignature(secret, t, body)}`;
}
