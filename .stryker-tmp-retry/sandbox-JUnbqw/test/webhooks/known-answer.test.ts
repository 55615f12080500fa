// @ts-nocheck
import { execFileSync } from "node:child_process";
import { createSandbox, signWebhook as signWebhookForTests } from "partner-orders/testing";
import {
  signWebhook,
  verifyWebhook,
  WebhookPayloadError,
  WebhookVerificationError,
} from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";

/**
 * Known answers for the `v1` signature (API document, "Signing": HMAC-SHA256 keyed with the secret
 * over `<t>` + `.` + the raw body bytes, lowercase hex), worked out with the openssl command-line
 * tool and never with code of this package, so a change to what the SDK signs cannot agree with
 * itself and pass. Each value is what the command in the comment above it prints (bash, UTF-8
 * locale; `printf '%s'` writes the text's UTF-8 bytes with no trailing newline).
 */
const T = 1_748_779_200; // 2025-06-01T12:00:00Z
const NOW = new Date(T * 1000);
const SECRET = "whsec_test_only_0123456789";

const B1 =
  '{"eventId":"evt_kat_1","type":"order.status_changed","occurredAt":"2025-06-01T11:59:58Z","siteId":12,"orderNumber":4711}';
/** Two-, three- and four-byte UTF-8 characters: the HMAC covers bytes, not UTF-16 code units. */
const B2 =
  '{"eventId":"evt_kat_2","type":"shipment.shipped","occurredAt":"2025-06-01T11:59:58Z","siteId":12,"orderNumber":4711,"partnerOrderId":"Zürich-東京-🚚","shipmentNumber":2}';

interface Vector {
  name: string;
  secret: string;
  t: string;
  body: string;
  v1: string;
}

const vectors: Vector[] = [
  {
    name: "an order.status_changed event",
    secret: SECRET,
    t: `${T}`,
    body: B1,
    // printf '%s' '1748779200.<B1>' | openssl dgst -sha256 -hmac 'whsec_test_only_0123456789'
    v1: "2927d0b46cdd201cfd9635c4c6dd642c8030e467a031a47ee34616f723fd109a",
  },
  {
    name: "a body with non-ASCII characters",
    secret: SECRET,
    t: `${T}`,
    body: B2,
    // printf '%s' '1748779200.<B2>' | openssl dgst -sha256 -hmac 'whsec_test_only_0123456789'
    v1: "10f1c6d74fd900052a2049fa49a793ee52476cf87795b1747803d0f04c14d624",
  },
  {
    name: "an empty body",
    secret: SECRET,
    t: `${T}`,
    body: "",
    // printf '%s' '1748779200.' | openssl dgst -sha256 -hmac 'whsec_test_only_0123456789'
    v1: "1ebae362d91f010a0d902e56ae8a89ae96b085e0f56a9fac6e7c52f0f5ef6adf",
  },
  {
    name: "a non-ASCII secret (keyed with its UTF-8 bytes)",
    secret: "clé-🔑",
    t: `${T}`,
    body: B1,
    // printf '%s' '1748779200.<B1>' | openssl dgst -sha256 -hmac 'clé-🔑'
    v1: "f99aa6af4a32e8ba3163d822679ff254a74eb4c9b25deb15b90d1600b34c0b64",
  },
  {
    name: "a t with a leading zero (signed as sent)",
    secret: SECRET,
    t: `0${T}`,
    body: B1,
    // printf '%s' '01748779200.<B1>' | openssl dgst -sha256 -hmac 'whsec_test_only_0123456789'
    v1: "e8c57aa9019dee22214fa72633be799579d65e4c1a2abbdd0482cd8ab0a287be",
  },
];

/** The rotation vector: the same body as the first one, signed with the previous secret. */
const OLD_SECRET = "whsec_old";
// printf '%s' '1748779200.<B1>' | openssl dgst -sha256 -hmac 'whsec_old'
const B1_OLD_V1 = "e11683a30e8f64606765dc71b56061813b1b46922761ac55c9e13841acb43c86";

/** What the same body would give with `:` in place of the `.` the API document prescribes. */
// printf '%s' '1748779200:<B1>' | openssl dgst -sha256 -hmac 'whsec_test_only_0123456789'
const B1_COLON_V1 = "779e499293690d108b1dbc8cbe32c37048ddcbae495c34ae58384cad168c9648";

const headerOf = (t: string, ...v1: string[]) => ({
  "platform-signature": [`t=${t}`, ...v1.map((hex) => `v1=${hex}`)].join(","),
});

describe("webhook signatures against values computed with openssl", () => {
  it("the vectors are what openssl prints on this machine (the table was not mistyped)", () => {
    for (const v of vectors) {
      const out = execFileSync("openssl", ["dgst", "-sha256", "-hmac", v.secret], {
        input: `${v.t}.${v.body}`,
      }).toString();
      expect(out.trim().split(/\s+/).pop(), v.name).toBe(v.v1);
    }
  });

  // signWebhook takes t as a number, which has no leading zero: that vector is for verifyWebhook.
  it.each(vectors.filter((v) => v.t === `${T}`))(
    "signWebhook gives the known header for $name",
    async (v) => {
      const header = `t=${T},v1=${v.v1}`;
      expect(await signWebhook(v.body, v.secret, { t: T })).toBe(header);
      expect(await signWebhookForTests(v.body, v.secret, { t: T })).toBe(header);
      // Bytes as well as text: a Uint8Array of the same UTF-8 bytes signs the same.
      expect(await signWebhook(new TextEncoder().encode(v.body), v.secret, { t: T })).toBe(header);
    },
  );

  it.each(vectors.filter((v) => v.body !== ""))("verifyWebhook accepts $name", async (v) => {
    const event = await verifyWebhook({
      body: v.body,
      headers: headerOf(v.t, v.v1),
      secret: v.secret,
      now: NOW,
    });
    expect(event).toEqual(JSON.parse(v.body));
    // As bytes too (a Buffer, as Node frameworks hand the raw body over).
    await expect(
      verifyWebhook({
        body: Buffer.from(v.body, "utf8"),
        headers: headerOf(v.t, v.v1),
        secret: v.secret,
        now: NOW,
      }),
    ).resolves.toEqual(JSON.parse(v.body));
  });

  it("verifyWebhook accepts the empty-body signature, then finds the body is no event", async () => {
    const [, , empty] = vectors;
    const error = await verifyWebhook({
      body: "",
      headers: headerOf(`${T}`, empty?.v1 ?? ""),
      secret: SECRET,
      now: NOW,
    }).catch((e: unknown) => e);
    // A payload error, not a verification error: the signature held.
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect((error as WebhookPayloadError).reason).toBe("invalid_json");
  });

  it("verifyWebhook refuses a known signature moved to another body or another t", async () => {
    const [first, second] = vectors as [Vector, Vector];
    for (const [body, t] of [
      [second.body, first.t],
      [first.body, `${T + 1}`],
    ] as const) {
      const error = await verifyWebhook({
        body,
        headers: headerOf(t, first.v1),
        secret: SECRET,
        now: NOW,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe("signature_mismatch");
    }
  });

  it("verifyWebhook refuses the signature of `<t>:<body>`: the separator is a dot", async () => {
    const error = await verifyWebhook({
      body: B1,
      headers: headerOf(`${T}`, B1_COLON_V1),
      secret: SECRET,
      now: NOW,
    }).catch((e: unknown) => e);
    expect((error as WebhookVerificationError).reason).toBe("signature_mismatch");
  });

  describe("secret rotation", () => {
    const [first] = vectors as [Vector];

    it("signWebhook with the previous secret gives its known value", async () => {
      expect(await signWebhook(B1, OLD_SECRET, { t: T })).toBe(`t=${T},v1=${B1_OLD_V1}`);
    });

    it("accepts a delivery signed with either secret of the list, in either order", async () => {
      for (const v1 of [B1_OLD_V1, first.v1]) {
        for (const secret of [
          [OLD_SECRET, SECRET],
          [SECRET, OLD_SECRET],
        ]) {
          await expect(
            verifyWebhook({ body: B1, headers: headerOf(`${T}`, v1), secret, now: NOW }),
          ).resolves.toMatchObject({ eventId: "evt_kat_1" });
        }
      }
    });

    it("accepts a header carrying both signatures, whichever secret is still configured", async () => {
      const headers = headerOf(`${T}`, B1_OLD_V1, first.v1);
      for (const secret of [[OLD_SECRET], [SECRET], "whsec_test_only_0123456789"]) {
        await expect(verifyWebhook({ body: B1, headers, secret, now: NOW })).resolves.toMatchObject(
          { eventId: "evt_kat_1" },
        );
      }
    });

    it("refuses a delivery signed with a secret that is not in the list", async () => {
      const error = await verifyWebhook({
        body: B1,
        headers: headerOf(`${T}`, B1_OLD_V1),
        secret: [SECRET, "whsec_next"],
        now: NOW,
      }).catch((e: unknown) => e);
      expect((error as WebhookVerificationError).reason).toBe("signature_mismatch");
    });
  });
});

describe("the sandbox signs deliveries as openssl does", () => {
  it("every signed delivery's v1 is openssl's HMAC of `<t>.<body>`", async () => {
    const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
    const secret = "whsec_sändbox-🔑";
    const bodies: string[] = [];
    sandbox.webhooks.register({
      url: "http://127.0.0.1:9/hooks",
      secret,
      fetch: async (request) => {
        bodies.push(await request.text());
        return new Response(null, { status: 204 });
      },
    });
    sandbox.webhooks.sendTestEvent();
    sandbox.webhooks.sendTestEvent({ type: "shipment.shipped" });
    await sandbox.webhooks.settled();
    const deliveries = sandbox.webhooks.deliveries;
    expect(deliveries).toHaveLength(2);
    for (const [i, d] of deliveries.entries()) {
      expect(bodies[i]).toBe(d.body);
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(d.headers["platform-signature"] ?? "");
      expect(match, d.headers["platform-signature"]).not.toBeNull();
      const [, t, v1] = match as RegExpExecArray;
      const expected = execFileSync("openssl", ["dgst", "-sha256", "-hmac", secret], {
        input: `${t}.${d.body}`,
      })
        .toString()
        .trim()
        .split(/\s+/)
        .pop();
      expect(v1).toBe(expected);
    }
    await sandbox.close();
  });
});
