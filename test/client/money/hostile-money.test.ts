import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, raw } from "../../support/fake-server";
import { order, orderRequest, submissionId } from "../../support/fixtures";

// The service sends money as plain decimal text (API document, OrderTotals: "a decimal amount encoded
// as a string"): digits, an optional `-` and an optional fraction. decimal.js's own parser reads far
// more (hex, exponents, NaN, Infinity); none of that may become a value.
describe("a string-encoded money field that is not decimal text", () => {
  it.each([
    "0x10",
    "0b11",
    "0o7",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e5",
    "1E-3",
    "+1",
    ".5",
    "5.",
    " 1",
    "1 ",
    "1,5",
  ])("%j is a typed error, never a Decimal", async (text) => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () => json(order(9, { item: text })));
    const error = await rejection(client.orders.get(9));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("totals.item");
  });

  it("plain decimal text still reads exactly", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () => json(order(9, { item: "-0012.5000000000" })));
    expect((await client.orders.get(9)).totals.item?.toFixed(10)).toBe("-12.5000000000");
  });
});

/** A completed submission whose `totalPrice` is written as `total`, verbatim. */
function submissionText(total: string): string {
  return `{"submissionId":"${submissionId}","status":"completed","order":{"orderNumber":1,"status":"Pending","totalPrice":${total},"projectId":2,"lines":[]}}`;
}

// Number-encoded money (SubmittedOrder.totalPrice) is a JSON number: JSON allows an exponent there,
// and decimal.js reads it exactly, so `1e5` is accepted; a string in its place must still be decimal.
describe("a number-encoded money field", () => {
  it.each([
    '"0x10"',
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
    '"1e5x"',
    '""',
    "1e99999999999999999",
    "1e-99999999999999999",
  ])("%s is a typed error", async (text) => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText(text), 201));
    const error = await rejection(client.orders.submit(orderRequest()));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("order.totalPrice");
  });

  it("a JSON number with an exponent is read exactly", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText("1.25e5"), 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(submission.order?.totalPrice.toString()).toBe("125000");
  });
});
