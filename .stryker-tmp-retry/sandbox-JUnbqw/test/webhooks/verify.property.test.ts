// @ts-nocheck
import fc from "fast-check";
import {
  signWebhook,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { NOW, NOW_SECONDS, SECRET, shipmentShipped } from "./support";

// Moderate run counts: every run does real HMACs through Web Crypto.
const runs = { numRuns: 60 };

async function outcome(promise: Promise<unknown>): Promise<"ok" | string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    if (error instanceof WebhookPayloadError) return `payload:${error.reason}`;
    throw error;
  }
}

const header = (t: number | string, hex: string) => ({ "platform-signature": `t=${t},v1=${hex}` });
const hexOf = (value: string) => value.split("v1=")[1] as string;

describe("verifyWebhook properties", () => {
  it("rejects any change to the body bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (body, at, flip) => {
          const signature = await signWebhook(body, SECRET, { t: NOW_SECONDS });
          const changed = body.slice();
          const i = at % changed.length;
          changed[i] = (changed[i] as number) ^ flip;
          const headers = { "platform-signature": signature };
          expect(
            await outcome(verifyWebhook({ body: changed, headers, secret: SECRET, now: NOW })),
          ).toBe("signature_mismatch");
        },
      ),
      runs,
    );
  });

  it("rejects bytes appended or removed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.boolean(),
        async (body, grow) => {
          const signature = await signWebhook(body, SECRET, { t: NOW_SECONDS });
          const changed = grow
            ? new Uint8Array([...body, 0x20])
            : body.subarray(0, body.length - 1);
          const headers = { "platform-signature": signature };
          expect(
            await outcome(verifyWebhook({ body: changed, headers, secret: SECRET, now: NOW })),
          ).toBe("signature_mismatch");
        },
      ),
      runs,
    );
  });

  it("rejects any other timestamp, even inside the tolerance", async () => {
    const body = JSON.stringify(shipmentShipped());
    const hex = hexOf(await signWebhook(body, SECRET, { t: NOW_SECONDS }));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -299, max: 299 }).filter((d) => d !== 0),
        async (delta) => {
          const headers = header(NOW_SECONDS + delta, hex);
          expect(await outcome(verifyWebhook({ body, headers, secret: SECRET, now: NOW }))).toBe(
            "signature_mismatch",
          );
        },
      ),
      runs,
    );
  });

  it("rejects any change to the signature", async () => {
    const body = JSON.stringify(shipmentShipped());
    const hex = hexOf(await signWebhook(body, SECRET, { t: NOW_SECONDS }));
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 63 }),
        fc.constantFrom(..."0123456789abcdef"),
        async (at, digit) => {
          fc.pre(hex[at] !== digit);
          const changed = hex.slice(0, at) + digit + hex.slice(at + 1);
          const headers = header(NOW_SECONDS, changed);
          expect(await outcome(verifyWebhook({ body, headers, secret: SECRET, now: NOW }))).toBe(
            "signature_mismatch",
          );
        },
      ),
      runs,
    );
  });

  it("rejects every re-serialization that changes the bytes", async () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    await fc.assert(
      fc.asyncProperty(json, fc.constantFrom(0, 1, 2, "\t"), async (value, indent) => {
        const original = JSON.stringify({ ...shipmentShipped(), extra: value });
        const reserialized = JSON.stringify(JSON.parse(original), null, indent);
        fc.pre(reserialized !== original);
        const signature = await signWebhook(original, SECRET, { t: NOW_SECONDS });
        const headers = { "platform-signature": signature };
        expect(
          await outcome(verifyWebhook({ body: reserialized, headers, secret: SECRET, now: NOW })),
        ).toBe("signature_mismatch");
      }),
      runs,
    );
  });

  it("verifies non-ASCII bodies, as a string or as bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 40 }), async (text) => {
        const body = JSON.stringify(shipmentShipped({ note: text }));
        const headers = {
          "platform-signature": await signWebhook(body, SECRET, { t: NOW_SECONDS }),
        };
        const fromString = await verifyWebhook({ body, headers, secret: SECRET, now: NOW });
        const fromBytes = await verifyWebhook({
          body: new TextEncoder().encode(body),
          headers,
          secret: SECRET,
          now: NOW,
        });
        expect(fromString).toEqual({ ...shipmentShipped(), note: text });
        expect(fromBytes).toEqual(fromString);
      }),
      runs,
    );
  });

  it("verifies signed bodies that are not UTF-8 on their bytes, then refuses them as payloads", async () => {
    // Verification is on bytes (API document, "Signing", rule 1): the signature holds, and only
    // reading the event fails, with a payload error rather than a verification error.
    const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 80 }).filter((bytes) => {
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        return false;
      } catch {
        return true;
      }
    });
    await fc.assert(
      fc.asyncProperty(invalidUtf8, async (body) => {
        const headers = {
          "platform-signature": await signWebhook(body, SECRET, { t: NOW_SECONDS }),
        };
        expect(await outcome(verifyWebhook({ body, headers, secret: SECRET, now: NOW }))).toBe(
          "payload:invalid_utf8",
        );
        const tampered = {
          "platform-signature": await signWebhook(body, "whsec_other", { t: NOW_SECONDS }),
        };
        expect(
          await outcome(verifyWebhook({ body, headers: tampered, secret: SECRET, now: NOW })),
        ).toBe("signature_mismatch");
      }),
      runs,
    );
  });

  it("never throws anything but WebhookVerificationError for random header strings", async () => {
    const body = JSON.stringify(shipmentShipped());
    const fragments = fc.constantFrom(
      "t=",
      "v1=",
      ",",
      "=",
      " ",
      `${NOW_SECONDS}`,
      "a".repeat(64),
      "ü",
      "",
    );
    const headerText = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: "binary", maxLength: 120 }),
      fc.array(fragments, { maxLength: 12 }).map((parts) => parts.join("")),
    );
    await fc.assert(
      fc.asyncProperty(headerText, async (value) => {
        const error = await verifyWebhook({
          body,
          headers: { "platform-signature": value },
          secret: SECRET,
          now: NOW,
        }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WebhookVerificationError);
      }),
      { numRuns: 200 },
    );
  });
});
