import { describe, expect, it } from "vitest";
import { APIPromise } from "../../../src/core/api-promise";
import { operation } from "../../../src/core/http/operation";
import type { Http } from "../../../src/core/http/request";
import { paginate } from "../../../src/resources/list";

/**
 * An Http whose answers count how often their `Response` is asked for: building one per page costs
 * more than the page's own request, so a list walk must ask for none.
 */
function countingHttp(pages: { orders: number[]; nextCursor: string | null }[]) {
  const built = { count: 0 };
  let at = 0;
  const http = {
    call: () => {
      const page = pages[at++];
      return new APIPromise(
        Promise.resolve({
          data: {
            orders: page?.orders.map((orderNumber) => ({ orderNumber })),
            nextCursor: page?.nextCursor,
          },
          get response() {
            built.count++;
            return new Response(null, { status: 200, headers: { "x-page": String(at) } });
          },
        }),
      );
    },
  } as unknown as Http;
  return { http, built };
}

const list = () =>
  operation("listOrders", { params: { query: {} } }, { violations: [], what: "list" });

describe("a list's pages build their Response only when asked", () => {
  it("walking every page builds none", async () => {
    const { http, built } = countingHttp([
      { orders: [1, 2], nextCursor: "c1" },
      { orders: [3], nextCursor: null },
    ]);
    const seen: number[] = [];
    for await (const order of paginate<{ orderNumber: number }>(
      http,
      list(),
      "orders",
      undefined,
      undefined,
    ))
      seen.push(order.orderNumber);
    expect(seen).toEqual([1, 2, 3]);
    expect(built.count).toBe(0);
  });

  it("withResponse() still gives the first page's response", async () => {
    const { http, built } = countingHttp([{ orders: [1], nextCursor: null }]);
    const { data, response } = await paginate<{ orderNumber: number }>(
      http,
      list(),
      "orders",
      undefined,
      undefined,
    ).withResponse();
    expect(data.data).toEqual([{ orderNumber: 1 }]);
    expect(response.headers.get("x-page")).toBe("1");
    expect(built.count).toBe(1);
  });
});
