// @ts-nocheck
import { PartnerOrdersError } from "partner-orders";
import {
  signWebhook,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { delivery, NOW, NOW_SECONDS, SECRET, shipmentShipped } from "./support";

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe("verifyWebhook", () => {
  it("returns the typed event of a correctly signed delivery", async () => {
    const { body, headers } = await delivery();
    const event = await verifyWebhook({ body, headers, secret: SECRET, now: NOW });
    expect(event).toEqual(shipmentShipped());
  });

  it("accepts the body as a string, Buffer, Uint8Array and ArrayBuffer", async () => {
    const { body, headers } = await delivery();
    const bytes = new TextEncoder().encode(body);
    // A Buffer that is a slice of a larger allocation, as Node's pool hands them out.
    const pooled = Buffer.concat([Buffer.from("xxxx"), Buffer.from(body)]).subarray(4);
    for (const form of [body, Buffer.from(body), bytes, bytes.slice().buffer, pooled]) {
      await expect(
        verifyWebhook({ body: form, headers, secret: SECRET, now: NOW }),
      ).resolves.toMatchObject({
        eventId: "evt_0a1b2c3d",
      });
    }
  });

  it("reads the header from Fetch Headers, Node headers (arrays too) and plain objects, any case", async () => {
    const { body, headers } = await delivery();
    const value = headers["platform-signature"];
    for (const form of [
      new Headers({ "Platform-Signature": value }),
      { "platform-signature": [value] },
      { "PLATFORM-SIGNATURE": value },
      { "Platform-Signature": value, host: "x" },
    ]) {
      await expect(
        verifyWebhook({ body, headers: form, secret: SECRET, now: NOW }),
      ).resolves.toBeDefined();
    }
  });

  it("accepts any matching v1 and any of several secrets (rotation)", async () => {
    const { body } = await delivery();
    const old = (await signWebhook(body, "whsec_old", { t: NOW_SECONDS })).split(",")[1];
    const current = (await signWebhook(body, SECRET, { t: NOW_SECONDS })).split(",")[1];
    const header = `t=${NOW_SECONDS},${old},${current}`;
    const headers = { "platform-signature": header };
    await expect(verifyWebhook({ body, headers, secret: SECRET, now: NOW })).resolves.toBeDefined();
    await expect(
      verifyWebhook({ body, headers, secret: "whsec_old", now: NOW }),
    ).resolves.toBeDefined();
    const onlyOld = { "platform-signature": `t=${NOW_SECONDS},${old}` };
    await expect(
      verifyWebhook({ body, headers: onlyOld, secret: ["whsec_new", "whsec_old"], now: NOW }),
    ).resolves.toBeDefined();
    expect(
      await reason(verifyWebhook({ body, headers: onlyOld, secret: ["whsec_new"], now: NOW })),
    ).toBe("signature_mismatch");
  });

  it("accepts a matching v1 beside a v1 that is not a digest", async () => {
    const { body, headers } = await delivery();
    const valid = headers["platform-signature"];
    for (const junk of ["v1=abcd", "v1=", `v1=${"A".repeat(64)}`]) {
      const header = `${valid},${junk}`;
      await expect(
        verifyWebhook({
          body,
          headers: { "platform-signature": header },
          secret: SECRET,
          now: NOW,
        }),
      ).resolves.toMatchObject({ eventId: "evt_0a1b2c3d" });
    }
    const onlyJunk = { "platform-signature": `t=${NOW_SECONDS},v1=abcd,v1=` };
    expect(await reason(verifyWebhook({ body, headers: onlyJunk, secret: SECRET, now: NOW }))).toBe(
      "malformed_header",
    );
  });

  it("ignores entries of other schemes next to v1", async () => {
    const { body, headers } = await delivery();
    const header = `${headers["platform-signature"]},v0=abc,v2=${"f".repeat(64)}`;
    await expect(
      verifyWebhook({ body, headers: { "platform-signature": header }, secret: SECRET, now: NOW }),
    ).resolves.toBeDefined();
  });

  it("refuses a wrong secret, a changed body and a changed timestamp with signature_mismatch", async () => {
    const { body, headers } = await delivery();
    expect(await reason(verifyWebhook({ body, headers, secret: "whsec_other", now: NOW }))).toBe(
      "signature_mismatch",
    );
    expect(
      await reason(verifyWebhook({ body: `${body} `, headers, secret: SECRET, now: NOW })),
    ).toBe("signature_mismatch");
    const moved = headers["platform-signature"].replace(`t=${NOW_SECONDS}`, `t=${NOW_SECONDS + 1}`);
    expect(
      await reason(
        verifyWebhook({ body, headers: { "platform-signature": moved }, secret: SECRET, now: NOW }),
      ),
    ).toBe("signature_mismatch");
  });

  it("checks the tolerance both ways, 300 s by default, inclusive", async () => {
    const { body, headers } = await delivery();
    const at = (seconds: number) => new Date((NOW_SECONDS + seconds) * 1000);
    await expect(
      verifyWebhook({ body, headers, secret: SECRET, now: at(300) }),
    ).resolves.toBeDefined();
    await expect(
      verifyWebhook({ body, headers, secret: SECRET, now: at(-300) }),
    ).resolves.toBeDefined();
    expect(await reason(verifyWebhook({ body, headers, secret: SECRET, now: at(301) }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(await reason(verifyWebhook({ body, headers, secret: SECRET, now: at(-301) }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(
      await reason(
        verifyWebhook({ body, headers, secret: SECRET, now: at(11), toleranceSeconds: 10 }),
      ),
    ).toBe("timestamp_out_of_tolerance");
  });

  it("signals a missing header, naming parseWebhook for endpoints without a secret", async () => {
    const { body } = await delivery();
    const error = await verifyWebhook({ body, headers: {}, secret: SECRET, now: NOW }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.reason).toBe("missing_header");
    expect(error.message).toMatch(/parseWebhook/);
    expect(await reason(verifyWebhook({ body, headers: new Headers(), secret: SECRET }))).toBe(
      "missing_header",
    );
    expect(
      await reason(verifyWebhook({ body, headers: { "platform-signature": [] }, secret: SECRET })),
    ).toBe("missing_header");
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["no v1", `t=${NOW_SECONDS}`],
    ["no t", `v1=${"a".repeat(64)}`],
    ["repeated t", `t=${NOW_SECONDS},t=${NOW_SECONDS},v1=${"a".repeat(64)}`],
    ["non-numeric t", `t=soon,v1=${"a".repeat(64)}`],
    ["negative t", `t=-5,v1=${"a".repeat(64)}`],
    ["odd hex length", `t=${NOW_SECONDS},v1=${"a".repeat(63)}`],
    ["short hex", `t=${NOW_SECONDS},v1=abcd`],
    ["uppercase hex", `t=${NOW_SECONDS},v1=${"A".repeat(64)}`],
    ["multibyte", `t=${NOW_SECONDS},v1=${"é".repeat(64)}`],
    ["no equals sign", `t=${NOW_SECONDS},v1`],
    ["empty entry", `t=${NOW_SECONDS},,v1=${"a".repeat(64)}`],
    ["two folded headers", `t=1,v1=${"a".repeat(64)}, t=2,v1=${"b".repeat(64)}`],
  ])("refuses a malformed header (%s) with malformed_header", async (_, header) => {
    const { body } = await delivery();
    const headers = { "platform-signature": header };
    expect(await reason(verifyWebhook({ body, headers, secret: SECRET, now: NOW }))).toBe(
      "malformed_header",
    );
  });

  it("reads odd header shapes as a verification failure, never another error", async () => {
    const { body } = await delivery();
    const cases: [unknown, string][] = [
      [new Map([["platform-signature", 5]]), "malformed_header"],
      [{ get: () => Symbol("x") }, "malformed_header"],
      [
        {
          get: () => {
            throw new Error("broken");
          },
        },
        "malformed_header",
      ],
      [{ "platform-signature": Symbol("x") }, "malformed_header"],
      [{ "platform-signature": [Symbol("x")] }, "malformed_header"],
      [{ "platform-signature": { toString: null } }, "malformed_header"],
      [{ "platform-signature": 17 }, "malformed_header"],
      [{ "platform-signature": null }, "missing_header"],
      [null, "missing_header"],
      ["text", "missing_header"],
    ];
    for (const [headers, expected] of cases) {
      const call = verifyWebhook({
        body,
        headers: headers as Record<string, string>,
        secret: SECRET,
        now: NOW,
      });
      expect(await reason(call)).toBe(expected);
    }
  });

  it("refuses a parsed body, telling to pass the raw body", async () => {
    const { headers } = await delivery();
    const error = await verifyWebhook({
      body: shipmentShipped() as unknown as string,
      headers,
      secret: SECRET,
      now: NOW,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error.message).toMatch(/raw/);
    expect(error.message).toMatch(/express\.raw/);
  });

  it("hints at re-serialization when a pretty-printed body does not match", async () => {
    const { headers } = await delivery();
    const pretty = JSON.stringify(shipmentShipped(), null, 2);
    const error = await verifyWebhook({ body: pretty, headers, secret: SECRET, now: NOW }).catch(
      (e) => e,
    );
    expect(error.reason).toBe("signature_mismatch");
    expect(error.message).toMatch(/re-serialized/);
  });

  it("never puts the secret in a message", async () => {
    const { body, headers } = await delivery();
    const errors = await Promise.all([
      verifyWebhook({ body, headers, secret: "whsec_SuperSecretValue", now: NOW }).catch((e) => e),
      verifyWebhook({ body, headers: {}, secret: "whsec_SuperSecretValue" }).catch((e) => e),
      verifyWebhook({ body, headers, secret: ["whsec_SuperSecretValue", ""] }).catch((e) => e),
    ]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expect(`${error.message} ${error.stack}`).not.toContain("SuperSecretValue");
    }
  });

  it("refuses an empty secret list and a bad tolerance as programming errors", async () => {
    const { body, headers } = await delivery();
    await expect(verifyWebhook({ body, headers, secret: [] })).rejects.toBeInstanceOf(
      PartnerOrdersError,
    );
    await expect(verifyWebhook({ body, headers, secret: "" })).rejects.toBeInstanceOf(
      PartnerOrdersError,
    );
    await expect(
      verifyWebhook({ body, headers, secret: SECRET, toleranceSeconds: -1 }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it("after a valid signature, a body that is not JSON is a WebhookPayloadError", async () => {
    const body = "not json";
    const header = await signWebhook(body, SECRET, { t: NOW_SECONDS });
    const error = await verifyWebhook({
      body,
      headers: { "platform-signature": header },
      secret: SECRET,
      now: NOW,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect(error.reason).toBe("invalid_json");
  });

  it("uses the t text as sent, leading zeros included", async () => {
    const { body } = await delivery();
    const t = `00${NOW_SECONDS}`;
    const { computeSignature } = await import("partner-orders/webhooks");
    const header = `t=${t},v1=${await computeSignature(SECRET, t, body)}`;
    await expect(
      verifyWebhook({ body, headers: { "platform-signature": header }, secret: SECRET, now: NOW }),
    ).resolves.toBeDefined();
  });
});
