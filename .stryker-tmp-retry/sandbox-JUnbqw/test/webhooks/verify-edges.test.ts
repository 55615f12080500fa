// @ts-nocheck
import { PartnerOrdersError } from "partner-orders";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { delivery, NOW, NOW_SECONDS, SECRET } from "./support";

/**
 * Edges of verifyWebhook that mutation testing (npm run mutate) found unpinned: which refusal each
 * malformed header gets, what each message tells the partner, and the argument checks.
 */
async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return error as WebhookVerificationError;
}

async function withHeader(header: (v1: string) => string) {
  const { body, headers } = await delivery();
  const v1 = headers["platform-signature"].split(",v1=")[1] as string;
  return verifyWebhook({
    body,
    headers: { "platform-signature": header(v1) },
    secret: SECRET,
    now: NOW,
  });
}

describe("verifyWebhook's header parsing", () => {
  it("an entry that starts with '=' is not key=value, even when a v1 follows it", async () => {
    const error = await refusal(withHeader((v1) => `t=${NOW_SECONDS},=v1=${v1}`));
    expect(error.reason).toBe("malformed_header");
    expect(error.message).toContain('an entry is not "key=value"');
  });

  it.each([
    ["digits followed by other text", `${NOW_SECONDS}x`],
    ["more than 12 digits", `0${"9".repeat(12)}`],
    ["a sign", `+${NOW_SECONDS}`],
  ])("a t with %s is malformed_header, not a signature mismatch", async (_, t) => {
    const error = await refusal(withHeader((v1) => `t=${t},v1=${v1}`));
    expect(error.reason).toBe("malformed_header");
    expect(error.message).toContain("exactly one t, in unix seconds");
  });

  it.each([
    ["a prefix", (v1: string) => `x${v1}`],
    ["a suffix", (v1: string) => `${v1}0`],
    ["upper case", (v1: string) => v1.toUpperCase()],
  ])("a v1 of 64 hex digits with %s is not a usable v1: malformed_header", async (_, change) => {
    const error = await refusal(withHeader((v1) => `t=${NOW_SECONDS},v1=${change(v1)}`));
    expect(error.reason).toBe("malformed_header");
    expect(error.message).toContain("v1 of 64 lowercase hex digits");
  });

  it("a header value that is not text is malformed_header saying so", async () => {
    const { body } = await delivery();
    const error = await refusal(
      verifyWebhook({
        body,
        headers: { "platform-signature": Symbol("x") as never },
        secret: SECRET,
        now: NOW,
      }),
    );
    expect(error.reason).toBe("malformed_header");
    expect(error.message).toContain("it is not text");
  });
});

describe("verifyWebhook's refusals tell the partner what to do", () => {
  it("no header: missing_header, pointing at parseWebhook for endpoints without a secret", async () => {
    const { body } = await delivery();
    const error = await refusal(verifyWebhook({ body, headers: {}, secret: SECRET, now: NOW }));
    expect(error.reason).toBe("missing_header");
    expect(error.message).toContain("no Platform-Signature header");
    expect(error.message).toContain("parseWebhook()");
  });

  it("a parsed body: signature_mismatch, asking for the raw body", async () => {
    const { body, headers } = await delivery();
    const error = await refusal(
      verifyWebhook({ body: JSON.parse(body), headers, secret: SECRET, now: NOW }),
    );
    expect(error.reason).toBe("signature_mismatch");
    expect(error.message).toContain("raw request body");
  });

  it("a wrong secret: signature_mismatch, naming the secret and the raw body as suspects", async () => {
    const { body, headers } = await delivery();
    const error = await refusal(verifyWebhook({ body, headers, secret: "whsec_other", now: NOW }));
    expect(error.reason).toBe("signature_mismatch");
    expect(error.message).toContain("No v1 signature matches");
    expect(error.message).toContain("check the secret");
  });

  it("an old t: timestamp_out_of_tolerance, saying by how much and the tolerance", async () => {
    const { body } = await delivery();
    const header = await signWebhook(body, SECRET, { t: NOW_SECONDS - 301 });
    const error = await refusal(
      verifyWebhook({ body, headers: { "platform-signature": header }, secret: SECRET, now: NOW }),
    );
    expect(error.reason).toBe("timestamp_out_of_tolerance");
    expect(error.message).toContain("is 301 s off the verifier's clock");
    expect(error.message).toContain("(tolerance 300 s)");
  });
});

describe("verifyWebhook's arguments", () => {
  it("an invalid `now` is a RangeError saying so", async () => {
    const { body, headers } = await delivery();
    const error = await verifyWebhook({
      body,
      headers,
      secret: SECRET,
      now: new Date(Number.NaN),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toContain("`now` is an invalid Date");
  });

  it("a tolerance of 0 is allowed: only t equal to now passes", async () => {
    const { body, headers } = await delivery();
    await expect(
      verifyWebhook({ body, headers, secret: SECRET, now: NOW, toleranceSeconds: 0 }),
    ).resolves.toBeDefined();
    const later = new Date(NOW.getTime() + 1000);
    const error = await refusal(
      verifyWebhook({ body, headers, secret: SECRET, now: later, toleranceSeconds: 0 }),
    );
    expect(error.reason).toBe("timestamp_out_of_tolerance");
  });

  it("a negative tolerance is a RangeError saying what is allowed", async () => {
    const { body, headers } = await delivery();
    const error = await verifyWebhook({
      body,
      headers,
      secret: SECRET,
      now: NOW,
      toleranceSeconds: -1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toContain("finite number of seconds, 0 or more");
  });

  it.each([
    ["an empty string", "", ""],
    ["a list of one empty string", [""], ""],
    ["a missing secret", undefined, ""],
    [
      "a list with an empty second entry",
      [SECRET, ""],
      " (entry 1 of the list is empty or not a string)",
    ],
  ])("%s: a PartnerOrdersError with the exact message", async (_, secret, which) => {
    const { body, headers } = await delivery();
    const error = await verifyWebhook({ body, headers, secret: secret as never, now: NOW }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toBe(
      `The webhook signing secret must be a non-empty string, or a non-empty list of them while rotating${which}.`,
    );
  });
});
