import { PartnerOrdersError, WebhookVerificationError } from "../core/errors";
import { notRawBodyMessage, rawBodyBytes, type WebhookBody } from "./body";
import { decodeEvent, type WebhookEvent } from "./events";
import { computeSignature } from "./signature";

/**
 * Request headers as frameworks hand them over: a Fetch `Headers`, Node's `req.headers`
 * (`IncomingHttpHeaders`, values `string | string[]`) or a plain object. Names match
 * case-insensitively.
 */
export type WebhookHeaders =
  | {
      /** A header's value, or null when absent, as a Fetch `Headers` answers. */
      get(name: string): string | null;
    }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** What {@link verifyWebhook} checks: one delivery, and the secret(s) to check it with. */
export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: a string, Buffer/Uint8Array or ArrayBuffer. */
  body: WebhookBody;
  /** The delivery's request headers; `Platform-Signature` is read from them. */
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
  const nowMs = (options.now ?? new Date()).getTime();
  if (Number.isNaN(nowMs)) throw new RangeError("verifyWebhook: `now` is an invalid Date.");

  const bytes = rawBodyBytes(options.body);
  if (!bytes)
    throw new WebhookVerificationError("signature_mismatch", notRawBodyMessage(options.body));

  const header = readSignatureHeader(options.headers);
  if (header === undefined) {
    throw new WebhookVerificationError(
      "missing_header",
      "The delivery has no Platform-Signature header. Endpoints registered without a signing " +
        "secret get none: use parseWebhook() for those.",
    );
  }
  const { t, signatures } = parseSignatureHeader(header);

  // Signature first, timestamp second: a timestamp refusal then always concerns an authentic
  // delivery, which points at clock skew or a replay rather than at the secret.
  const expected = await Promise.all(secrets.map((secret) => computeSignature(secret, t, bytes)));
  if (!expected.some((hex) => signatures.some((signature) => constantTimeEqual(hex, signature)))) {
    throw new WebhookVerificationError(
      "signature_mismatch",
      "No v1 signature matches this body with the given secret(s): check the secret, and pass " +
        "the raw request body exactly as received, not parsed and re-serialized.",
    );
  }

  const skew = Math.abs(nowMs / 1000 - Number(t));
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The Platform-Signature timestamp is ${Math.round(skew)} s off the verifier's clock ` +
        `(tolerance ${toleranceSeconds} s): a replayed delivery, or a clock that is off.`,
    );
  }
  return decodeEvent(bytes);
}

/**
 * Comparison of two hex digests whose time depends only on the length of `a` (API document,
 * "Signing", rule 3): every character is visited, differences are OR-ed together, no early exit.
 */
function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * `t=<unix seconds>,v1=<64 lowercase hex>[,v1=...]`. Any other shape is `malformed_header`, never
 * another exception. Entries of other schemes (`v0`, a future `v2`) are ignored, as other signers
 * with versioned schemes do, so a new scheme can be added beside `v1`. `t` is kept as sent: the
 * signer's HMAC covers this text, leading zeros included.
 */
function parseSignatureHeader(header: string): { t: string; signatures: string[] } {
  // Bounds the work a hostile header can cause; far more than any rotation needs.
  if (header.length > 4096) throw malformed("it is over 4096 characters long");
  const ts: string[] = [];
  const signatures: string[] = [];
  for (const entry of header.split(",")) {
    const [, key, value = ""] = /^\s*([^=]+)=(.*?)\s*$/.exec(entry) ?? [];
    if (key === "t") ts.push(value);
    else if (key === "v1") signatures.push(value);
    else if (key === undefined) throw malformed('an entry is not "key=value"');
  }
  const [t] = ts;
  if (ts.length !== 1 || !/^\d{1,12}$/.test(`${t}`)) {
    throw malformed("it needs exactly one t, in unix seconds");
  }
  // Any matching v1 is accepted (a header may carry one per secret while secrets rotate), so one
  // v1 that is not a digest does not hide another that matches; it simply never matches. Only a
  // header with no usable v1 is malformed.
  if (!signatures.some((hex) => /^[0-9a-f]{64}$/.test(hex))) {
    throw malformed("it needs a v1 of 64 lowercase hex digits");
  }
  return { t: `${t}`, signatures };
}

function malformed(why: string): WebhookVerificationError {
  return new WebhookVerificationError(
    "malformed_header",
    `The Platform-Signature header is malformed: ${why}. Expected "t=<unix seconds>,v1=<hex>".`,
  );
}

/**
 * The signature header's value, whatever shape `headers` has. Several values (an array, or keys
 * differing in case) are joined with ", " as Node and Fetch fold repeated headers; a repeated
 * signature header then reads as malformed rather than letting one copy hide another.
 */
function readSignatureHeader(headers: WebhookHeaders): string | undefined {
  const name = "platform-signature";
  // A value that is not text (a number or a Symbol in a Map or a hand-built object) is a
  // malformed_header like any other bad value, never a TypeError from deeper down.
  try {
    const value =
      typeof headers?.get === "function"
        ? (headers as { get(name: string): unknown }).get(name)
        : Object.entries(headers ?? {}).flatMap(([key, value]) =>
            key.toLowerCase() === name && value != null ? value : [],
          );
    return value == null || (Array.isArray(value) && !value.length) ? undefined : `${value}`;
  } catch {
    throw malformed("it is not text");
  }
}

/**
 * Secrets as a non-empty list of non-empty strings, refused at configuration otherwise with a
 * `PartnerOrdersError` that never echoes a secret. An empty entry is refused rather than skipped:
 * it is most often a rotation variable left unset (`[process.env.NEW, process.env.OLD]`), and
 * skipping it would hide that the endpoint now checks against one secret fewer than intended.
 */
export function checkSecrets(secret: string | readonly string[]): readonly string[] {
  const list = typeof secret === "string" ? [secret] : secret;
  const bad = Array.isArray(list) ? list.findIndex((item) => !item || typeof item !== "string") : 0;
  if (!Array.isArray(list) || !list.length || bad >= 0) {
    const which = list?.length > 1 ? ` (entry ${bad} of the list is empty or not a string)` : "";
    throw new PartnerOrdersError(
      "The webhook signing secret must be a non-empty string, or a non-empty list of them while " +
        `rotating${which}.`,
    );
  }
  return list;
}

/** The tolerance of the API document ("Signing", rule 2; Limits: 300 seconds) unless given. */
export function checkTolerance(toleranceSeconds = 300): number {
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError("toleranceSeconds must be a finite number of seconds, 0 or more.");
  }
  return toleranceSeconds;
}
