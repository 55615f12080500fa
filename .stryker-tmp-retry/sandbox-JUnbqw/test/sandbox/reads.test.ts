// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { api, tokenFor } from "./helpers";

const sandbox = createSandbox({ packagesPerResponse: 50 });
const F = sandbox.fixtures;
let client: ReturnType<typeof api>;
let other: ReturnType<typeof api>;

beforeAll(async () => {
  client = api(sandbox, await tokenFor(sandbox));
  other = api(sandbox, await tokenFor(sandbox, null, sandbox.otherCredentials));
});

/** Follows nextCursor to the end, as a client must; returns every row and the page sizes. */
async function walk(path: string, field: string) {
  const rows: unknown[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const { status, json } = await client.get(cursor ? `${path}${sep}cursor=${cursor}` : path);
    expect(status).toBe(200);
    rows.push(...json[field]);
    sizes.push(json[field].length);
    cursor = json.nextCursor;
  } while (cursor);
  return { rows, sizes };
}

describe("grants", () => {
  it("answers an order outside the grant exactly like a missing one", async () => {
    const outside = await client.get(`/v1/orders/${F.orders.otherPartner}`);
    const missing = await client.get("/v1/orders/999999999");
    expect(outside.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(outside.json.code).toBe("order_not_found");
    expect(outside.json.detail.replace(/\d+/g, "N")).toBe(missing.json.detail.replace(/\d+/g, "N"));
    expect((await other.get(`/v1/orders/${F.orders.otherPartner}`)).status).toBe(200);
    for (const sub of ["items", "shipments"]) {
      expect((await client.get(`/v1/orders/${F.orders.otherPartner}/${sub}`)).json.code).toBe(
        "order_not_found",
      );
    }
  });

  it("lists only granted sites, not-live ones included", async () => {
    const { json } = await client.get("/v1/sites");
    expect(json.sites.map((s: { siteId: number }) => s.siteId)).toEqual([101, 102, 103]);
    expect(json.sites[2]).toEqual({
      siteId: 103,
      name: expect.any(String),
      homeUrl: null,
      live: false,
    });
  });

  it("refuses a siteId filter outside the grant or not a positive integer", async () => {
    for (const siteId of ["201", "0", "-1", "abc"]) {
      const { status, json } = await client.get(`/v1/orders?siteId=${siteId}`);
      expect([status, json.code]).toEqual([400, "invalid_site_id"]);
    }
    expect((await client.get("/v1/products?siteId=201")).json.code).toBe("invalid_site_id");
  });
});

describe("GET /v1/orders", () => {
  it("pages every order of a site by (placedOn, orderNumber), 50 by default", async () => {
    const { rows, sizes } = await walk("/v1/orders?siteId=101", "orders");
    expect(rows).toHaveLength(F.mainSiteOrderCount);
    expect(sizes.slice(0, 5)).toEqual([50, 50, 50, 50, 50]);
    const keys = (rows as { placedOn: string; orderNumber: number }[]).map(
      (o) => `${o.placedOn}#${o.orderNumber}`,
    );
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("caps the page at 200 and falls back to 50 for a non-positive limit", async () => {
    expect((await client.get("/v1/orders?limit=500")).json.orders).toHaveLength(200);
    expect((await client.get("/v1/orders?limit=0")).json.orders).toHaveLength(50);
    expect((await client.get("/v1/orders?limit=7")).json.orders).toHaveLength(7);
  });

  it("filters by exact status", async () => {
    const { json } = await client.get("/v1/orders?status=Shipped&limit=200");
    expect(json.orders.length).toBeGreaterThan(0);
    expect(json.orders.every((o: { status: string }) => o.status === "Shipped")).toBe(true);
    expect((await client.get("/v1/orders?status=shipped")).json.orders).toHaveLength(0);
  });

  it("carries totals as 10-digit decimal strings or null", async () => {
    const { rows } = await walk("/v1/orders?limit=200", "orders");
    const totals = (rows as { totals: Record<string, string | null> }[]).flatMap((o) =>
      Object.values(o.totals),
    );
    expect(totals.some((t) => t === null)).toBe(true);
    for (const t of totals) if (t !== null) expect(t).toMatch(/^-?\d+\.\d{10}$/);
  });

  it("rejects updatedSince", async () => {
    const { status, json } = await client.get("/v1/orders?updatedSince=2024-01-01T00:00:00Z");
    expect([status, json.code]).toEqual([400, "updated_since_not_supported"]);
  });

  it("rejects malformed and foreign cursors", async () => {
    const items = await client.get(`/v1/orders/${F.orders.manyItems}/items?limit=1`);
    const foreign = items.json.nextCursor as string;
    for (const cursor of ["%%%", "bm90LWpzb24", foreign, Buffer.from("[]").toString("base64url")]) {
      const { status, json } = await client.get(`/v1/orders?cursor=${cursor}`);
      expect([status, json.code]).toEqual([400, "invalid_cursor"]);
    }
    // An order's items cursor does not page another order's items either.
    const elsewhere = await client.get(`/v1/orders/${F.orders.tracking}/items?cursor=${foreign}`);
    expect(elsewhere.json.code).toBe("invalid_cursor");
  });

  it("rejects a cursor the service did not issue: never construct or edit one", async () => {
    const page = await client.get("/v1/orders?limit=1");
    const issued = page.json.nextCursor as string;
    expect((await client.get(`/v1/orders?cursor=${issued}`)).status).toBe(200);
    const [payload = "", check = ""] = issued.split(".");
    const key = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const built = [
      // The same shape, built by hand: with and without the issued check value.
      Buffer.from(JSON.stringify({ e: "orders" })).toString("base64url"),
      `${Buffer.from(JSON.stringify({ ...key, n: 1 })).toString("base64url")}.${check}`,
      Buffer.from(JSON.stringify(key)).toString("base64url"),
      `${payload}.${check.replace(/.$/, (c) => (c === "0" ? "1" : "0"))}`,
    ];
    for (const cursor of built) {
      const { status, json } = await client.get(`/v1/orders?cursor=${cursor}`);
      expect([status, json.code]).toEqual([400, "invalid_cursor"]);
    }
  });

  it("validates the order number path segment", async () => {
    // A very large number is still a positive integer: see large-integers.test.ts.
    for (const n of ["0", "-5", "abc", "1.5", "01"]) {
      expect((await client.get(`/v1/orders/${n}`)).json.code).toBe("invalid_order_number");
    }
  });
});

describe("GET /v1/orders/{orderNumber}/items", () => {
  it("pages visible lines, cancelled ones included, hidden ones never", async () => {
    const { rows, sizes } = await walk(`/v1/orders/${F.orders.manyItems}/items`, "items");
    expect(sizes).toEqual([50, 50, 20]);
    const items = rows as { cancelled: boolean; sku: string | null; lineTotal: string | null }[];
    expect(items.some((i) => i.cancelled)).toBe(true);
    expect(items.some((i) => i.sku === null)).toBe(true);
    expect(items.some((i) => i.lineTotal === null)).toBe(true);
    expect(items[0]).not.toHaveProperty("visible");
    expect(
      (await client.get(`/v1/orders/${F.orders.manyItems}/items?limit=1000`)).json.items,
    ).toHaveLength(120);
  });

  it("answers 200 with an empty array for an order with no visible lines", async () => {
    const { status, json } = await client.get(`/v1/orders/${F.orders.noVisibleItems}/items`);
    expect([status, json]).toEqual([200, { items: [], nextCursor: null }]);
  });
});

describe("GET /v1/orders/{orderNumber}/shipments", () => {
  it("computes trackingNumbers by the precedence rule", async () => {
    const { json } = await client.get(`/v1/orders/${F.orders.tracking}/shipments`);
    const byNumber = Object.fromEntries(
      json.shipments.map((s: { shipmentNumber: number; trackingNumbers: string[] }) => [
        s.shipmentNumber,
        s,
      ]),
    );
    expect(byNumber[1].trackingNumbers).toEqual(["1ZCARRIER0001", "1ZCARRIER0002"]);
    expect(byNumber[1].manualTrackingNumber).toBe("MANUAL-IGNORED");
    expect(byNumber[2].trackingNumbers).toEqual(["MANUAL-0002"]);
    expect(byNumber[3]).toMatchObject({ trackingNumbers: [], shippedOn: null, packages: [] });
    expect(json.packagesComplete).toBe(true);
  });

  it("pages 25 by default, caps at 50, and falls back to 25 for a bad limit", async () => {
    const path = `/v1/orders/${F.orders.manyShipments}/shipments`;
    expect((await walk(path, "shipments")).sizes).toEqual([25, 25, 10]);
    expect((await client.get(`${path}?limit=80`)).json.shipments).toHaveLength(50);
    for (const bad of ["0", "-3", "x", "2.5"]) {
      expect((await client.get(`${path}?limit=${bad}`)).json.shipments).toHaveLength(25);
    }
  });

  it("answers 200, an empty array and a null cursor for an order without shipments", async () => {
    const { json } = await client.get(`/v1/orders/${F.orders.noShipments}/shipments`);
    expect(json).toEqual({ shipments: [], nextCursor: null, packagesComplete: true });
  });

  it("says packagesComplete false past the packages ceiling, and true with a smaller limit", async () => {
    const path = `/v1/orders/${F.orders.manyPackages}/shipments`;
    const full = await client.get(path);
    expect(full.json.packagesComplete).toBe(false);
    const kept = full.json.shipments.reduce(
      (n: number, s: { packages: unknown[] }) => n + s.packages.length,
      0,
    );
    expect(kept).toBe(50);
    const small = await client.get(`${path}?limit=1`);
    expect(small.json.packagesComplete).toBe(true);
    expect(small.json.shipments[0].packages).toHaveLength(40);
    expect(small.json.shipments[0].trackingNumbers).toHaveLength(40);
  });
});

describe("products and quotes", () => {
  it("lists one entry per variant, ordered, 100 by default", async () => {
    const { rows, sizes } = await walk("/v1/products?siteId=101", "products");
    expect(sizes[0]).toBe(100);
    const entries = rows as { productId: string; variantId: number | null; serviceType: string }[];
    expect(
      entries.filter((p) => p.productId === F.products.stockTracked).map((p) => p.variantId),
    ).toEqual([11, 12]);
    expect(entries.some((p) => p.productId === F.products.unlisted)).toBe(false);
    const pod = entries.find((p) => p.productId === F.products.pod);
    expect(pod).toMatchObject({
      variantId: null,
      sku: null,
      weight: null,
      availableInventory: null,
      serviceType: "POD",
    });
    const untracked = entries.find((p) => p.productId === F.products.stockUntracked);
    expect(untracked).toMatchObject({ inventoryTracked: false, availableInventory: null });
    expect(entries.find((p) => p.productId === F.products.stockOutOfStock)).toMatchObject({
      availableInventory: 0,
    });
  });

  it("filters by serviceType and validates it and the limit bounds", async () => {
    const { json } = await client.get("/v1/products?serviceType=POD");
    expect(json.products.every((p: { serviceType: string }) => p.serviceType === "POD")).toBe(true);
    expect((await client.get("/v1/products?serviceType=pod")).json.code).toBe(
      "invalid_service_type",
    );
    expect((await client.get("/v1/products?limit=9999")).json.products.length).toBeLessThanOrEqual(
      500,
    );
  });

  it("details a product with its variants and the latest updatedOn", async () => {
    const { json } = await client.get(`/v1/products/${F.products.stockTracked}`);
    expect(json.variants.map((v: { variantId: number }) => v.variantId)).toEqual([11, 12]);
    expect(json.updatedOn).toBe("2023-12-31T00:00:00.000Z");
    expect((await client.get("/v1/products/ABC_1")).json.code).toBe("invalid_product_id");
    expect((await client.get(`/v1/products/${F.products.otherPartner}`)).json.code).toBe(
      "product_not_found",
    );
  });

  it("quotes a total price as a JSON number from the catalog and site rules", async () => {
    const { status, json } = await client.post(`/v1/products/${F.products.pod}/quote`, {
      quantity: 3,
    });
    expect(status).toBe(200);
    // 3 x 24.00, +10 % site markup, -15 % offering discount.
    expect(json).toMatchObject({ productId: F.products.pod, quantity: 3, totalPrice: 67.32 });
    expect(Date.parse(json.createdOn)).not.toBeNaN();
  });

  it("answers quote errors with their documented codes", async () => {
    const quote = (id: string, body: unknown) => client.post(`/v1/products/${id}/quote`, body);
    for (const body of [{}, { quantity: 0 }, { quantity: 1.5 }, { quantity: "2" }, "not json"]) {
      expect((await quote(F.products.pod, body)).json.code).toBe("invalid_quantity");
    }
    const over = await quote(F.products.pod, { quantity: 501 });
    expect([over.status, over.json.code]).toEqual([422, "quote_invalid"]);
    const unpriced = await quote(F.products.unpriceable, { quantity: 1 });
    expect([unpriced.status, unpriced.json.code]).toEqual([404, "quote_product_not_found"]);
    expect((await quote("SLO_x", { quantity: 1 })).json.code).toBe("invalid_product_id");
    expect((await quote(F.products.otherPartner, { quantity: 1 })).json.code).toBe(
      "product_not_found",
    );
  });
});

describe("problem documents", () => {
  it("use about:blank, a title, the status and a requestId, as application/problem+json", async () => {
    const res = await sandbox.fetch("/v1/orders/abc", { headers: { authorization: "Bearer x" } });
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const token = await tokenFor(sandbox);
    const { headers, json } = await api(sandbox, token).get("/v1/orders/abc");
    expect(headers.get("content-type")).toBe("application/problem+json");
    expect(json).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      code: "invalid_order_number",
      detail: expect.any(String),
      requestId: expect.any(String),
    });
  });

  it("serves POST /v1/mcp behind authentication", async () => {
    expect((await sandbox.fetch("/v1/mcp", { method: "POST" })).status).toBe(401);
    const token = await tokenFor(sandbox);
    const res = await sandbox.fetch("/v1/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(body.id).toBe(1);
    expect(body.result.tools.map((t) => t.name)).toContain("get_order");
  });
});
