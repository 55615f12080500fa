import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { NotFoundError } from "../../../src/core/errors";
import { FakeClock } from "../../support/fake-clock";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

const base = "https://partner.msw.test";
const tokens: string[] = [];
const posted: string[] = [];
let polls = 0;

const server = setupServer(
  http.post(`${base}/oauth2/token`, async ({ request }) => {
    tokens.push(await request.text());
    return HttpResponse.json({ access_token: "msw-token", expires_in: 3600 });
  }),
  http.get(`${base}/v1/me`, ({ request }) =>
    request.headers.get("authorization") === "Bearer msw-token"
      ? HttpResponse.json({
          partnerId: "p-1",
          partnerName: "Acme",
          grantedSiteIds: [7],
          authMethod: "COGNITO_M2M",
          scopes: ["partner-api/orders:read"],
        })
      : HttpResponse.json(
          { code: "invalid_token", title: "Unauthorized", status: 401 },
          { status: 401 },
        ),
  ),
  http.get(`${base}/v1/orders`, ({ request }) => {
    const cursor = new URL(request.url).searchParams.get("cursor");
    return cursor === null
      ? HttpResponse.json({
          orders: [
            {
              orderNumber: 1,
              totals: { item: "1.5000000000", shipping: null, tax: null, order: null },
            },
          ],
          nextCursor: "n1",
        })
      : HttpResponse.json({
          orders: [
            {
              orderNumber: 2,
              totals: { item: null, shipping: null, tax: null, order: "9.9900000000" },
            },
          ],
          nextCursor: null,
        });
  }),
  http.get(`${base}/v1/orders/404`, () =>
    HttpResponse.json(
      {
        type: "about:blank",
        title: "Not Found",
        status: 404,
        code: "order_not_found",
        detail: "No such order.",
        requestId: "r-9",
      },
      { status: 404, headers: { "content-type": "application/problem+json" } },
    ),
  ),
  http.post(`${base}/v1/orders`, async ({ request }) => {
    posted.push(await request.text());
    return HttpResponse.json(submission("queued"), {
      status: 201,
      headers: { location: `/v1/orders/submissions/${submissionId}`, "retry-after": "2" },
    });
  }),
  http.get(`${base}/v1/orders/submissions/:id`, () =>
    ++polls < 2
      ? HttpResponse.json(submission("processing"), { headers: { "retry-after": "2" } })
      : HttpResponse.json(completedSubmission()),
  ),
);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function client(clock = new FakeClock()) {
  // No `fetch` option: the client looks up globalThis.fetch at call time, which msw intercepts.
  return new PartnerOrders({
    baseUrl: base,
    clientId: "id",
    clientSecret: "secret",
    scopes: ["orders:read"],
    clock,
  });
}

describe("end to end through msw", () => {
  it("authenticates and reads the principal", async () => {
    const me = await client().me();
    expect(me.partnerId).toBe("p-1");
    expect(new URLSearchParams(tokens.at(-1)).get("scope")).toBe("partner-api/orders:read");
  });

  it("walks every page of orders with Decimal totals", async () => {
    const seen: string[] = [];
    for await (const order of client().orders.list()) {
      seen.push(`${order.orderNumber}:${(order.totals.item ?? order.totals.order)?.toFixed(2)}`);
    }
    expect(seen).toEqual(["1:1.50", "2:9.99"]);
  });

  it("turns a problem document into a NotFoundError", async () => {
    const error = await client()
      .orders.get(404)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).requestId).toBe("r-9");
  });

  it("submits and waits until completed", async () => {
    const clock = new FakeClock();
    const result = await client(clock).submitOrderAndWait(orderRequest());
    expect(result.status).toBe("completed");
    expect(result.order?.totalPrice.toString()).toBe("12.5");
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(posted.map((b) => JSON.parse(b))).toEqual([orderRequest()]);
  });
});
