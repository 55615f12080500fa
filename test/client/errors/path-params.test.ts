import { describe, expect, it } from "vitest";
import type { PartnerOrders } from "../../../src/client";
import { RequestValidationError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { orderRequest } from "../../support/fixtures";

const hostile: [string, (client: PartnerOrders) => unknown][] = [
  ['orders.get("../x")', (c) => c.orders.get("../x" as never)],
  ['orders.get("1/../2")', (c) => c.orders.get("1/../2" as never)],
  ["orders.items(-1)", (c) => c.orders.items(-1)],
  ['orders.shipments("9?x=1")', (c) => c.orders.shipments("9?x=1" as never)],
  ['products.get("https://evil")', (c) => c.products.get("https://evil")],
  ['products.get("SLO_1/../../v1/me")', (c) => c.products.get("SLO_1/../../v1/me")],
  ['products.quote("../SLO_1", 1)', (c) => c.products.quote("../SLO_1", 1)],
  ['submissions.get("1/../2")', (c) => c.submissions.get("1/../2")],
  ['submissions.wait("//evil.test/x")', (c) => c.submissions.wait("//evil.test/x")],
  ["orders.submit with a broken rule", (c) => c.orders.submit({ ...orderRequest(), lines: [] })],
  [
    "submitOrderAndWait with a broken rule",
    (c) => c.submitOrderAndWait({ ...orderRequest(), partnerOrderId: "" }),
  ],
];

describe("arguments that break their documented format", () => {
  it.each(hostile)("%s throws RequestValidationError and sends nothing", async (_, call) => {
    const { client, server } = harness();
    const error = await rejection(() => call(client));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).violations.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(0);
  });

  it("names every violation with its path", async () => {
    const { client } = harness();
    const error = (await rejection(() =>
      client.orders.submit({
        ...orderRequest(),
        siteId: 0,
        lines: [{ productId: "bad", partnerLineId: "l", quantity: 0 }],
      } as never),
    )) as RequestValidationError;
    const paths = error.violations.map((v) => v.path);
    expect(paths).toEqual(
      expect.arrayContaining(["siteId", "lines[0].productId", "lines[0].quantity"]),
    );
  });
});
