import { WebhookVerificationError } from "../core/errors";
import { notRawBodyMessage, rawBodyBytes, type WebhookBody } from "./body";
import { decodeEvent, type WebhookEvent } from "./events";
import { hmacSha256, signedPayload } from "./signature";

/** The signature header (API document, "Signing"). */
export const SIGNATURE_HEADER = "platform-signature";

/** The tolerance of the API document ("Signing", rule 2; Limits: 300 seconds). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Request headers as frameworks hand them over: a Fetch `Headers`, Node's `req.headers`
 * (`IncomingHttpHeaders`, values `string | string[]`) or a plain object. Names match
 * case-insensitively.
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. */
  body: WebhookBody;
  headers: WebhookHeaders;
  /**
   * The endpoint's signing secret. Give a list while rotating: a delivery signed with any of them
   * is accepted.
   */
  secret: string | readonly string[];
  /**
   * How far `t` may be from `now`, in the past or the future, in seconds.
   * @default 300
   */
  toleranceSeconds?: number;
  /** The verifier's clock. @default new Date() */
  now?: Date;
}

/**
 * Verifies a delivery's `Platform-Signature` and returns its event (API document, "Signing"):
 * HMAC-SHA256 over `<t>.<raw body bytes>` with any of the secrets, compared in constant time, with
 * `t` within the tolerance of `now` both ways. Web Crypto only, so it runs on Node, Deno, Bun and
 * edge workers.
 *
 * Verification is on bytes: a body that is not UTF-8 still verifies when it was signed, and only
 * then fails to read as an event ({@link WebhookPayloadError} `invalid_utf8`).
 *
 * @throws {WebhookVerificationError} `missing_header`, `malformed_header`, `signature_mismatch`
 *   (also when `body` is not raw) or `timestamp_out_of_tolerance`.
 * @throws {WebhookPayloadError} when a correctly signed body is not a JSON event.
 * @example
 * const event = await verifyWebhook({ body: rawBody, headers: req.headers, secret });
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const secrets = checkSecrets(options.secret);
  const toleranceSeconds = checkTolerance(options.toleranceSeconds);
  const now = options.now ?? new Date();
  if (Number.isNaN(now.getTime())) throw new RangeError("verifyWebhook: `now` is an invalid Date.");

  const bytes = rawBodyBytes(options.body);
  if (!bytes)
    throw new WebhookVerificationError("signature_mismatch", notRawBodyMessage(options.body));

  const header = readHeader(options.headers, SIGNATURE_HEADER);
  if (header === undefined) {
    throw new WebhookVerificationError(
      "missing_header",
      "The delivery has no Platform-Signature header. Endpoints registered without a signing " +
        "secret receive none; use parseWebhook() for those.",
    );
  }
  const { t, seconds, signatures } = parseSignatureHeader(header);

  // Signature first, timestamp second: a timestamp refusal then always concerns an authentic
  // delivery, which points at clock skew or a replay rather than at the secret.
  const message = signedPayload(t, bytes);
  let matched = false;
  for (const secret of secrets) {
    const expected = await hmacSha256(secret, message);
    for (const signature of signatures) {
      if (constantTimeEqual(expected, signature)) matched = true;
    }
  }
  if (!matched)
    throw new WebhookVerificationError("signature_mismatch", mismatchMessage(options.body));

  const skew = Math.abs(now.getTime() / 1000 - seconds);
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The Platform-Signature timestamp is ${Math.round(skew)} s away from the verifier's clock ` +
        `(tolerance ${toleranceSeconds} s): a replayed delivery, or a clock that is off.`,
    );
  }
  return decodeEvent(bytes);
}

/**
 * Byte comparison whose time depends only on the length (API document, "Signing", rule 3): every
 * byte is visited, differences are OR-ed together, there is no early exit.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

interface ParsedSignature {
  /** `t` exactly as sent: the signer's HMAC covers this text, leading zeros included. */
  t: string;
  seconds: number;
  signatures: Uint8Array[];
}

/** More entries than any rotation needs; bounds the work a hostile header can cause. */
const MAX_SIGNATURES = 16;
const MAX_HEADER_LENGTH = 4096;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const UNIX_SECONDS = /^\d{1,12}$/;
const V1_HEX = /^[0-9a-f]{64}$/;

/**
 * `t=<unix seconds>,v1=<64 lowercase hex>[,v1=...]`. Any other shape is `malformed_header`, never
 * another exception. Entries of other schemes (`v0`, a future `v2`) are ignored, as other signers
 * with versioned schemes do, so a new scheme can be added beside `v1`.
 */
export function parseSignatureHeader(header: string): ParsedSignature {
  if (header.length > MAX_HEADER_LENGTH) throw malformed("it is too long");
  if (!PRINTABLE_ASCII.test(header)) throw malformed("it has characters outside printable ASCII");
  if (header.trim() === "") throw malformed("it is empty");
  let t: string | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(",")) {
    const entry = part.trim();
    const eq = entry.indexOf("=");
    if (eq <= 0) throw malformed('an entry is not "key=value"');
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (key === "t") {
      if (t !== undefined) throw malformed("t appears more than once");
      if (!UNIX_SECONDS.test(value)) throw malformed("t is not unix seconds");
      t = value;
    } else if (key === "v1") {
      if (!V1_HEX.test(value)) throw malformed("a v1 is not 64 lowercase hex digits");
      signatures.push(hexToBytes(value));
    }
  }
  if (t === undefined) throw malformed("t is missing");
  if (signatures.length === 0) throw malformed("v1 is missing");
  if (signatures.length > MAX_SIGNATURES) throw malformed("it has too many v1 entries");
  return { t, seconds: Number(t), signatures };
}

function malformed(why: string): WebhookVerificationError {
  return new WebhookVerificationError(
    "malformed_header",
    `The Platform-Signature header is malformed: ${why}. Expected "t=<unix seconds>,v1=<hex>".`,
  );
}

/** Only called on text already checked to be lowercase hex of even length. */
function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * One header's value, whatever shape `headers` has. Several values (an array, or keys differing
 * in case) are joined with ", " as Node and Fetch fold repeated headers; a repeated signature
 * header then reads as malformed rather than letting one copy hide another.
 */
export function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) {
      for (const item of value) if (typeof item === "string") values.push(item);
    }
  }
  return values.length === 0 ? undefined : values.join(", ");
}

/** Secrets as a non-empty list. A programming error is a TypeError that never echoes the secret. */
export function checkSecrets(secret: string | readonly string[]): readonly string[] {
  const list = typeof secret === "string" ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(
      "A webhook signing secret is required (a string, or a list while rotating).",
    );
  }
  for (const item of list) {
    if (typeof item !== "string" || item === "") {
      throw new TypeError("Every webhook signing secret must be a non-empty string.");
    }
  }
  return list;
}

export function checkTolerance(toleranceSeconds: number | undefined): number {
  const value = toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== "number" || !(value >= 0) || value === Number.POSITIVE_INFINITY) {
    throw new RangeError("toleranceSeconds must be a finite number of seconds, 0 or more.");
  }
  return value;
}

/**
 * The refusal, with the likely cause when the body looks re-serialized: a string with the line
 * breaks and indentation of `JSON.stringify(value, null, 2)` is almost never what was sent.
 */
function mismatchMessage(body: WebhookBody): string {
  let text = "No v1 signature in Platform-Signature matches this body with the given secret(s).";
  if (typeof body === "string" && /\n\s+"/.test(body) && looksLikeJson(body)) {
    text +=
      " The body looks pretty-printed, i.e. re-serialized after parsing: pass the raw request body" +
      " bytes exactly as received.";
  } else {
    text +=
      " Check the secret, and that the body is the raw request body exactly as received (not" +
      " parsed and re-serialized, not re-encoded).";
  }
  return text;
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
