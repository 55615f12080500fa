// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { api, shipTo, tokenFor, validOrder } from "./helpers";

const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
let client: ReturnType<typeof api>;
beforeAll(async () => {
  client = api(sandbox, await tokenFor(sandbox));
});

// biome-ignore lint/suspicious/noExplicitAny: each case mutates a fresh copy of a valid order
type Mutate = (order: any) => void;
const line = (patch: object = {}) => ({
  productId: "SLS_2001",
  partnerLineId: "p",
  quantity: 1,
  ...patch,
});

/** Each case breaks one documented rule of POST /v1/orders; `field` must be named in the detail. */
const cases: Array<[string, Mutate, string]> = [
  ["missing siteId", (o) => delete o.siteId, "siteId"],
  ["non-integer siteId", (o) => (o.siteId = "101"), "siteId"],
  ["zero siteId", (o) => (o.siteId = 0), "siteId"],
  ["missing partnerOrderId", (o) => delete o.partnerOrderId, "partnerOrderId"],
  ["empty partnerOrderId", (o) => (o.partnerOrderId = ""), "partnerOrderId"],
  ["101-char partnerOrderId", (o) => (o.partnerOrderId = "x".repeat(101)), "partnerOrderId"],
  ["non-ASCII partnerOrderId", (o) => (o.partnerOrderId = "po-é"), "partnerOrderId"],
  ["control char in partnerOrderId", (o) => (o.partnerOrderId = "po\n1"), "partnerOrderId"],
  ["unknown top-level field", (o) => (o.priority = "high"), "priority"],
  ["unitPrice on a line", (o) => (o.lines[0].unitPrice = 1), "lines[0].unitPrice"],
  ["missing lines", (o) => delete o.lines, "lines"],
  ["no lines", (o) => (o.lines = []), "lines"],
  [
    "101 lines",
    (o) => (o.lines = Array.from({ length: 101 }, (_, i) => line({ partnerLineId: `l${i}` }))),
    "lines",
  ],
  ["missing productId", (o) => delete o.lines[1].productId, "lines[1].productId"],
  ["malformed productId", (o) => (o.lines[1].productId = "SLX_1"), "lines[1].productId"],
  [
    "25-char productId",
    (o) => (o.lines[1].productId = `SLO_${"1".repeat(21)}`),
    "lines[1].productId",
  ],
  [
    "19-digit productId",
    (o) => (o.lines[1].productId = `SLO_${"1".repeat(19)}`),
    "lines[1].productId",
  ],
  ["missing partnerLineId", (o) => delete o.lines[0].partnerLineId, "lines[0].partnerLineId"],
  [
    "long partnerLineId",
    (o) => (o.lines[0].partnerLineId = "l".repeat(101)),
    "lines[0].partnerLineId",
  ],
  [
    "duplicate partnerLineId",
    (o) => (o.lines[1].partnerLineId = "line-1"),
    "lines[1].partnerLineId",
  ],
  ["zero quantity", (o) => (o.lines[0].quantity = 0), "lines[0].quantity"],
  ["fractional quantity", (o) => (o.lines[0].quantity = 1.5), "lines[0].quantity"],
  ["missing quantity", (o) => delete o.lines[0].quantity, "lines[0].quantity"],
  ["negative variantId", (o) => (o.lines[0].variantId = -1), "lines[0].variantId"],
  ["variantId missing on STOCK", (o) => delete o.lines[0].variantId, "lines[0].variantId"],
  ["variantId on POD", (o) => (o.lines[1].variantId = 5), "lines[1].variantId"],
  ["101-char sku", (o) => (o.lines[0].sku = "s".repeat(101)), "lines[0].sku"],
  ["201-char jobName", (o) => (o.lines[0].jobName = "j".repeat(201)), "lines[0].jobName"],
  [
    "2001-char artworkUrl",
    (o) => (o.lines[0].artworkUrl = "a".repeat(2001)),
    "lines[0].artworkUrl",
  ],
  [
    "templateVariables not an object",
    (o) => (o.lines[1].templateVariables = ["a"]),
    "lines[1].templateVariables",
  ],
  [
    "51 templateVariables",
    (o) =>
      (o.lines[1].templateVariables = Object.fromEntries(
        Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]),
      )),
    "lines[1].templateVariables",
  ],
  [
    "101-char templateVariables key",
    (o) => (o.lines[1].templateVariables = { ["k".repeat(101)]: "v" }),
    "templateVariables",
  ],
  [
    "2001-char templateVariables value",
    (o) => (o.lines[1].templateVariables = { k: "v".repeat(2001) }),
    "templateVariables.k",
  ],
  [
    "non-string templateVariables value",
    (o) => (o.lines[1].templateVariables = { k: 1 }),
    "templateVariables.k",
  ],
  [
    "__proto__ key",
    (o) => (o.lines[1].templateVariables = JSON.parse('{"__proto__":"x"}')),
    "__proto__",
  ],
  ["constructor key", (o) => (o.lines[1].templateVariables = { constructor: "x" }), "constructor"],
  ["prototype key", (o) => (o.lines[1].templateVariables = { prototype: "x" }), "prototype"],
  ["no shipTo anywhere", (o) => delete o.shipTo, "shipTo"],
  ["shipTo on both levels", (o) => (o.lines[1].shipTo = shipTo), "lines[1].shipTo"],
  [
    "shipTo on some lines only",
    (o) => {
      delete o.shipTo;
      o.lines[0].shipTo = shipTo;
    },
    "lines[1].shipTo",
  ],
  [
    "email on a line shipTo",
    (o) => {
      delete o.shipTo;
      for (const l of o.lines) l.shipTo = { ...shipTo, email: "a@b.c" };
    },
    "lines[0].shipTo.email",
  ],
  ["shipTo missing city", (o) => delete o.shipTo.city, "shipTo.city"],
  ["3-letter country", (o) => (o.shipTo.country = "GBR"), "shipTo.country"],
  ["201-char name", (o) => (o.shipTo.name = "n".repeat(201)), "shipTo.name"],
  ["101-char state", (o) => (o.shipTo.state = "s".repeat(101)), "shipTo.state"],
  ["21-char postalCode", (o) => (o.shipTo.postalCode = "1".repeat(21)), "shipTo.postalCode"],
  ["41-char phone", (o) => (o.shipTo.phone = "1".repeat(41)), "shipTo.phone"],
  ["255-char email", (o) => (o.shipTo.email = `${"e".repeat(250)}@x.io`), "shipTo.email"],
  ["unknown shipTo field", (o) => (o.shipTo.floor = "3"), "shipTo.floor"],
];

describe("POST /v1/orders validation", () => {
  it.each(cases)("%s: 400 invalid_request naming the field", async (_name, mutate, field) => {
    const order = validOrder();
    mutate(order);
    const { status, json, headers } = await client.post("/v1/orders", order);
    expect(status).toBe(400);
    expect(headers.get("content-type")).toBe("application/problem+json");
    expect(json.code).toBe("invalid_request");
    expect(json.detail).toContain(field);
  });

  it("refuses malformed JSON and a non-object body", async () => {
    for (const body of ["{", "[]", "null", '"order"']) {
      const { status, json } = await client.post("/v1/orders", body);
      expect([status, json.code]).toEqual([400, "invalid_request"]);
    }
  });

  it("measures the 256 KB limit in UTF-8 bytes, not characters", async () => {
    const order = validOrder();
    // 3-byte characters: under 256 K characters, over 256 KB.
    order.lines[1].templateVariables = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${i}`, "€".repeat(2000)]),
    ) as never;
    const text = JSON.stringify(order);
    expect(text.length).toBeLessThan(262_144);
    expect(Buffer.byteLength(text)).toBeGreaterThan(262_144);
    const { status, json } = await client.post("/v1/orders", text);
    expect([status, json.code]).toEqual([400, "invalid_request"]);
    expect(json.detail).toMatch(/256 KB/);
  });

  it("accepts a body just under the limit and creates no record for refused ones", async () => {
    const before = sandbox.counters.submissionsCreated;
    const order = validOrder();
    order.lines[1].templateVariables = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${i}`, "a".repeat(2000)]),
    ) as never;
    const { status } = await client.post("/v1/orders", order);
    expect(status).toBe(201);
    expect(sandbox.counters.submissionsCreated).toBe(before + 1);
  });

  it("accepts a null variantId on a POD line, as the catalog lists it", async () => {
    const order = validOrder();
    (order.lines[1] as { variantId?: null }).variantId = null;
    expect((await client.post("/v1/orders", order)).status).toBe(201);
  });

  it("answers a site outside the grant with invalid_site_id", async () => {
    const order = { ...validOrder(), siteId: 201 };
    const { status, json } = await client.post("/v1/orders", order);
    expect([status, json.code]).toEqual([400, "invalid_site_id"]);
  });

  it("answers a site without an ordering user with 409 ordering_not_provisioned", async () => {
    const order = {
      ...validOrder(),
      siteId: 102,
      lines: [
        {
          productId: sandbox.fixtures.products.notProvisionedSite,
          partnerLineId: "a",
          quantity: 1,
        },
      ],
    };
    const { status, json } = await client.post("/v1/orders", order);
    expect([status, json.code]).toEqual([409, "ordering_not_provisioned"]);
  });
});
