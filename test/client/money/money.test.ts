import { beforeEach, describe, expect, it, vi } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { Decimal } from "../../../src/core/money";
import { harness, rejection } from "../../support/client";
import { json, raw } from "../../support/fake-server";
import { order, orderRequest, submissionId } from "../../support/fixtures";

function expectDecimal(value: unknown, text: string): void {
  expect(Decimal.isDecimal(value)).toBe(true);
  expect((value as Decimal).equals(text)).toBe(true);
}

/** A completed submission with number-encoded money, written as raw JSON text. */
function submissionText(total: string, listTotal: string, beforeAdjustments: string): string {
  return `{"submissionId":"${submissionId}","status":"completed","order":{"orderNumber":1,"status":"Pending","totalPrice":${total},"projectId":2,"lines":[{"partnerLineId":"l1","quantity":3,"lineListTotal":${listTotal},"lineTotalBeforeAdjustments":${beforeAdjustments},"futureField":0.1}],"futureOrderField":{"n":1.5}},"futureTop":[1,2]}`;
}

describe("string-encoded money and weights", () => {
  it("Order.totals are Decimals keeping all 10 fractional digits; null stays null", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9", () =>
      json(
        order(9, {
          item: "12345678901234.1234567891",
          shipping: "0.0000000001",
          tax: null,
          order: "12345678901234.1234567892",
        }),
      ),
    );
    const result = await client.orders.get(9);
    expect(result.totals.item?.toFixed(10)).toBe("12345678901234.1234567891");
    expect(result.totals.shipping?.toFixed(10)).toBe("0.0000000001");
    expect(result.totals.tax).toBeNull();
    expect(result.totals.order?.toFixed(10)).toBe("12345678901234.1234567892");
  });

  it("orders.list totals are Decimals", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders", () =>
      json({ orders: [order(1, { item: "2.5000000000", order: null })], nextCursor: null }),
    );
    const [first] = (await client.orders.list()).data;
    expectDecimal(first?.totals.item, "2.5");
    expect(first?.totals.order).toBeNull();
  });

  it("OrderItem lineListTotal and lineTotal are Decimals, nulls kept", async () => {
    const { client, server } = harness();
    server.on("GET /v1/orders/9/items", () =>
      json({
        items: [
          { itemNumber: 1, lineListTotal: "10.1000000000", lineTotal: "9.9999999999" },
          { itemNumber: 2, lineListTotal: null, lineTotal: null },
        ],
        nextCursor: null,
      }),
    );
    const items = (await client.orders.items(9)).data;
    expectDecimal(items[0]?.lineListTotal, "10.1");
    expect(items[0]?.lineTotal?.toFixed(10)).toBe("9.9999999999");
    expect(items[1]?.lineListTotal).toBeNull();
    expect(items[1]?.lineTotal).toBeNull();
  });

  it("Product weight and ProductDetail variants[].weight are Decimals, POD null kept", async () => {
    const { client, server } = harness();
    server.on("GET /v1/products", () =>
      json({
        products: [
          { productId: "SLO_1", weight: "0.25" },
          { productId: "SLO_2", weight: null },
        ],
        nextCursor: null,
      }),
    );
    server.on("GET /v1/products/SLO_1", () =>
      json({
        productId: "SLO_1",
        variants: [
          { variantId: 1, weight: "1.125" },
          { variantId: 2, weight: null },
        ],
      }),
    );
    const products = (await client.products.list()).data;
    expectDecimal(products[0]?.weight, "0.25");
    expect(products[1]?.weight).toBeNull();
    const detail = await client.products.get("SLO_1");
    expectDecimal(detail.variants[0]?.weight, "1.125");
    expect(detail.variants[1]?.weight).toBeNull();
  });
});

describe("number-encoded money is exact as written", () => {
  const big = "12345678901234.567";
  const small = "0.12345678901234567";

  it("orders.submit: totalPrice and both line totals, 17 significant digits kept", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText(big, small, "1e-7"), 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(submission.order?.totalPrice.toString()).toBe(big);
    expect(submission.order?.lines[0]?.lineListTotal.toString()).toBe(small);
    expectDecimal(submission.order?.lines[0]?.lineTotalBeforeAdjustments, "0.0000001");
  });

  it("submissions.get and submissions.list", async () => {
    const { client, server } = harness();
    server.on(`GET /v1/orders/submissions/${submissionId}`, () =>
      raw(submissionText(big, small, big)),
    );
    server.on("GET /v1/orders/submissions", () =>
      raw(`{"submissions":[${submissionText(small, big, small)}],"nextCursor":null}`),
    );
    const one = await client.submissions.get(submissionId);
    expect(one.order?.totalPrice.toString()).toBe(big);
    expect(one.order?.lines[0]?.lineTotalBeforeAdjustments.toString()).toBe(big);
    const [listed] = (await client.submissions.list()).data;
    expect(listed?.order?.totalPrice.toString()).toBe(small);
    expect(listed?.order?.lines[0]?.lineListTotal.toString()).toBe(big);
    expect(listed?.order?.lines[0]?.lineTotalBeforeAdjustments.toString()).toBe(small);
  });

  it("Quote.totalPrice", async () => {
    const { client, server } = harness();
    server.on("POST /v1/products/SLS_7/quote", () =>
      raw(
        `{"productId":"SLS_7","quantity":2,"totalPrice":${big},"createdOn":"2030-01-01T00:00:00Z"}`,
      ),
    );
    const quote = await client.products.quote("SLS_7", 2);
    expect(quote.totalPrice.toString()).toBe(big);
    expect(quote.createdOn).toBe("2030-01-01T00:00:00Z");
  });

  it("unknown fields pass through untouched, numbers as numbers", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText("1", "2", "3"), 201));
    const { submission } = await client.orders.submit(orderRequest());
    const body = submission as unknown as Record<string, unknown>;
    expect(body.futureTop).toEqual([1, 2]);
    const orderBody = submission.order as unknown as Record<string, unknown>;
    expect(orderBody.futureOrderField).toEqual({ n: 1.5 });
    const line = submission.order?.lines[0] as unknown as Record<string, unknown> | undefined;
    expect(line?.futureField).toBe(0.1);
  });

  it("a submission without an order (queued) needs no money", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json({ submissionId, status: "queued" }, 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(submission).toEqual({ submissionId, status: "queued" });
  });
});

describe("bad values in money fields", () => {
  it.each([
    ["a word in a string total", "GET /v1/orders/9", () => json(order(9, { item: "twelve" }))],
    ["an empty string total", "GET /v1/orders/9", () => json(order(9, { item: "" }))],
    [
      "an object total",
      "GET /v1/orders/9",
      () => json({ ...order(9), totals: { item: { v: 1 } } }),
    ],
  ])("%s gives a typed PartnerOrdersError", async (_, route, answer) => {
    const { client, server } = harness();
    server.on(route, answer);
    const error = await rejection(client.orders.get(9));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toContain("totals.item");
  });

  it("a boolean totalPrice in a number-money response gives a typed PartnerOrdersError", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => raw(submissionText("true", "1", "1"), 201));
    expect(await rejection(client.orders.submit(orderRequest()))).toBeInstanceOf(
      PartnerOrdersError,
    );
  });

  it("malformed JSON in a number-money response gives a typed PartnerOrdersError", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () =>
      raw(`{"submissionId":"x","order":{"totalPrice":1.2.3}}`, 201),
    );
    const error = await rejection(client.orders.submit(orderRequest()));
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(error).not.toBeInstanceOf(SyntaxError);
  });
});

describe("__proto__ in a number-money response", () => {
  it("stays an own property and pollutes no prototype", async () => {
    const { client, server } = harness();
    const text = submissionText("5", "6", "7")
      .replace('{"submissionId"', '{"__proto__":{"polluted":"yes"},"submissionId"')
      .replace('"orderNumber":1', '"__proto__":{"isAdmin":true},"orderNumber":1');
    server.on("POST /v1/orders", () => raw(text, 201));
    const { submission } = await client.orders.submit(orderRequest());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(submission)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(submission.order)).toBe(Object.prototype);
    expect((submission as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(submission, "__proto__")).toBe(true);
    expect(submission.order?.totalPrice.toString()).toBe("5");
  });
});

describe("decimal fields read one module at a time", () => {
  // Each test reads money.ts afresh: the decimal fields of an operation are compiled once per module,
  // and a test must see that compilation, not one left by an earlier test.
  beforeEach(() => {
    vi.resetModules();
  });

  async function decode(operationId: string, text: string): Promise<unknown> {
    const { decodeBody } = await import("../../../src/core/money");
    return decodeBody(operationId, text);
  }

  /** The error the body is refused with, checked to be the SDK's typed error. */
  async function decodeError(operationId: string, text: string): Promise<Error> {
    const { PartnerOrdersError } = await import("../../../src/core/errors");
    try {
      await decode(operationId, text);
    } catch (error) {
      expect(error).toBeInstanceOf(PartnerOrdersError);
      return error as Error;
    }
    throw new Error("expected the body to be refused");
  }

  /** The decimal text of a value the decoder made, or a note that it is not a Decimal. */
  function decimalText(value: unknown): string {
    const isDecimal = typeof (value as { toFixed?: unknown } | null)?.toFixed === "function";
    return isDecimal && typeof value === "object" ? String(value) : `not a Decimal: ${value}`;
  }

  describe("string-encoded money in a response", () => {
    it("an exponent in a string amount is refused even though number-encoded money may carry one", async () => {
      const error = await decodeError("getOrder", '{"totals":{"item":"1e5"}}');
      expect(error.message).toContain("totals.item");
    });

    it("a whole amount without a fraction is a Decimal", async () => {
      const data = (await decode("getOrder", '{"totals":{"item":"12","order":"-7"}}')) as {
        totals: Record<string, unknown>;
      };
      expect(decimalText(data.totals.item)).toBe("12");
      expect(decimalText(data.totals.order)).toBe("-7");
    });

    it("an amount the server sends as a JSON number is still a Decimal, zero included", async () => {
      const data = (await decode("getOrder", '{"totals":{"item":12.5,"shipping":0,"tax":-3}}')) as {
        totals: Record<string, unknown>;
      };
      expect(decimalText(data.totals.item)).toBe("12.5");
      expect(decimalText(data.totals.shipping)).toBe("0");
      expect(decimalText(data.totals.tax)).toBe("-3");
    });

    it("a null element of a list is left null", async () => {
      const data = (await decode("listOrders", '{"orders":[null,{"totals":{"item":"1.5"}}]}')) as {
        orders: [null, { totals: Record<string, unknown> }];
      };
      expect(data.orders[0]).toBeNull();
      expect(decimalText(data.orders[1].totals.item)).toBe("1.5");
    });

    it("a list member that is an object, not an array, is passed through untouched", async () => {
      const data = (await decode("listOrders", '{"orders":{"totals":{"item":"1.5"}}}')) as {
        orders: { totals: { item: unknown } };
      };
      expect(data.orders.totals.item).toBe("1.5");
    });

    it("a list member that only looks like an array (it has a length) is passed through untouched", async () => {
      const text = '{"orders":{"length":1,"0":{"totals":{"item":"x"}}}}';
      const data = (await decode("listOrders", text)) as { orders: { 0: { totals: unknown } } };
      expect(data.orders[0].totals).toEqual({ item: "x" });
    });

    it("unknown members pass through untouched, whatever their names", async () => {
      const text = '{"undefined":{"a":1},"totals":{"item":"2.5","undefined":{"b":[2]}}}';
      const data = (await decode("getOrder", text)) as {
        undefined: unknown;
        totals: { item: unknown; undefined: unknown };
      };
      expect(data.undefined).toEqual({ a: 1 });
      expect(data.totals.undefined).toEqual({ b: [2] });
      expect(decimalText(data.totals.item)).toBe("2.5");
    });

    it("absent amounts stay absent", async () => {
      const data = (await decode("getOrder", '{"totals":{"item":"2.5"}}')) as {
        totals: Record<string, unknown>;
      };
      expect(Object.keys(data.totals)).toEqual(["item"]);
    });
  });

  describe("number-encoded money in a response", () => {
    it("an exponent of several digits is read exactly", async () => {
      const data = (await decode("quoteProduct", '{"totalPrice":2.5e+12}')) as {
        totalPrice: unknown;
      };
      expect(decimalText(data.totalPrice)).toBe("2500000000000");
    });

    it("a body that is not JSON names the operation in a typed error", async () => {
      const error = await decodeError("quoteProduct", "<html>");
      expect(error.message).toBe("The quoteProduct response body is not valid JSON.");
    });
  });

  describe("a money field that is not an amount at all", () => {
    // decimal.js copies the digits of any object tagged as a Decimal: a body must not smuggle one in.
    it.each([
      ["an object dressed as a Decimal", '{"toStringTag":"[object Decimal]","s":1,"e":0,"d":[5]}'],
      ["an object", "{}"],
      ["an array", "[5]"],
      ["true", "true"],
    ])("%s is a typed error naming the field", async (_name, value) => {
      const error = await decodeError("getOrder", `{"totals":{"item":${value}}}`);
      expect(error.message).toBe(
        "The getOrder response has a value at totals.item that is not a decimal amount.",
      );
    });

    it("a JSON number too large for a double is no amount", async () => {
      const error = await decodeError("getOrder", '{"totals":{"tax":1e400}}');
      expect(error.message).toContain("totals.tax");
    });

    it.each(["0e-99999999999999999", "0.0e99999999999999999", "-0"])(
      "a number-encoded zero written as %s is zero, not an underflow",
      async (total) => {
        const data = (await decode("quoteProduct", `{"totalPrice":${total}}`)) as {
          totalPrice: unknown;
        };
        expect(decimalText(data.totalPrice)).toBe("0");
      },
    );

    it.each(["1e-99999999999999999", "0.5e-99999999999999999", "-9E-99999999999999999"])(
      "a number-encoded amount written as %s underflows to zero and is refused",
      async (total) => {
        const error = await decodeError("quoteProduct", `{"totalPrice":${total}}`);
        expect(error.message).toContain("totalPrice");
      },
    );
  });

  describe("money text longer than the fast path reads", () => {
    // Over 200 characters, plain decimal text goes to decimal.js's own parser, after the same check.
    const long = "9".repeat(240);
    it.each([
      [long, long],
      [`-${long}.25`, `-${long}.25`],
      [`${long}.5`, `${long}.5`],
    ])("%#: converted exactly", async (text, expected) => {
      const order = (await decode(
        "getOrder",
        JSON.stringify({
          orderNumber: 1,
          totals: { item: text, shipping: null, tax: null, order: null },
        }),
      )) as { totals: { item: { toFixed: () => string } } };
      expect(order.totals.item.toFixed()).toBe(expected);
    });

    it.each([`${long}e2`, `+${long}`, `${long}.`, `${long}x`, `0x${long}`])(
      "%#: refused like short text",
      async (text) => {
        const error = await decodeError(
          "getOrder",
          JSON.stringify({
            orderNumber: 1,
            totals: { item: text, shipping: null, tax: null, order: null },
          }),
        );
        expect(error.message).toContain("is not a decimal amount");
      },
    );
  });

  describe("the refusal names the field, the row and the reason", () => {
    /** The refusal of `text`, with the fields a caller reads. */
    async function refusal(operationId: string, text: string) {
      const { ResponseDecodeError } = await import("../../../src/core/errors");
      const error = await decodeError(operationId, text);
      expect(error).toBeInstanceOf(ResponseDecodeError);
      const {
        message,
        operationId: op,
        path,
        reason,
        index,
        orderNumber,
      } = error as InstanceType<typeof ResponseDecodeError>;
      return { message, operationId: op, path, reason, index, orderNumber };
    }

    it("a value outside any list names no row, even in a body that has an orderNumber", async () => {
      expect(await refusal("getOrder", '{"orderNumber":5,"totals":{"order":"abc"}}')).toEqual({
        message: "The getOrder response has a value at totals.order that is not a decimal amount.",
        operationId: "getOrder",
        path: "totals.order",
        reason: "text that is not a plain decimal",
        index: undefined,
        orderNumber: undefined,
      });
    });

    it("a row of a list is named by its position and its orderNumber", async () => {
      const text =
        '{"orders":[{"orderNumber":7,"totals":{}},{"orderNumber":8,"totals":{"tax":"1,5"}}]}';
      expect(await refusal("listOrders", text)).toEqual({
        message:
          "The listOrders response has a value at orders[].totals.tax that is not a decimal amount (orders[1], order 8).",
        operationId: "listOrders",
        path: "orders[].totals.tax",
        reason: "text that is not a plain decimal",
        index: 1,
        orderNumber: 8,
      });
    });

    it("a row without an orderNumber is named by its position alone", async () => {
      const error = await refusal("listOrders", '{"orders":[{"totals":{"item":true}}]}');
      expect(error.message).toBe(
        "The listOrders response has a value at orders[].totals.item that is not a decimal amount (orders[0]).",
      );
      expect(error.index).toBe(0);
      expect(error.orderNumber).toBeUndefined();
      expect(error.reason).toBe("a boolean where an amount is expected");
    });

    it("a value in a list inside a row is named by the row of the first list", async () => {
      const line = (total: string) => `{"lineListTotal":${total},"lineTotalBeforeAdjustments":1}`;
      const submission = (lines: string) =>
        `{"orderNumber":3,"order":{"orderNumber":9,"totalPrice":1,"lines":[${lines}]}}`;
      const text = `{"submissions":[${submission(line("1"))},${submission(`${line("2")},${line('"x"')}`)}]}`;
      const error = await refusal("listSubmissions", text);
      expect(error.path).toBe("submissions[].order.lines[].lineListTotal");
      expect(error.index).toBe(1);
      expect(error.orderNumber).toBe(3);
      expect(error.reason).toBe("text that is not a number");
      expect(error.message).toBe(
        "The listSubmissions response has a value at submissions[].order.lines[].lineListTotal that is not a decimal amount (submissions[1], order 3).",
      );
    });

    it.each([
      ['{"totalPrice":1e-99999999999999999}', "an amount out of range"],
      ['{"totalPrice":1e99999999999999999}', "an amount out of range"],
      ['{"totalPrice":"1e99999999999999999"}', "an amount out of range"],
      ['{"totalPrice":"0x10"}', "text that is not a number"],
      ['{"totalPrice":{}}', "an object where an amount is expected"],
      ['{"totalPrice":[]}', "an array where an amount is expected"],
      ['{"totalPrice":false}', "a boolean where an amount is expected"],
    ])("%s: %s", async (text, reason) => {
      expect((await refusal("quoteProduct", text)).reason).toBe(reason);
    });

    it("a body that is not JSON is refused as a whole", async () => {
      expect(await refusal("getOrder", "{")).toEqual({
        message: "The getOrder response body is not valid JSON.",
        operationId: "getOrder",
        path: "",
        reason: "not valid JSON",
        index: undefined,
        orderNumber: undefined,
      });
    });
  });

  describe("decodeRows: a list body whose bad rows are left out", () => {
    async function rows(operationId: string, text: string) {
      const { decodeRows } = await import("../../../src/core/money");
      const { body, rejected } = decodeRows(operationId, text);
      return {
        body: body as Record<string, unknown> | null,
        rejected: rejected.map((e) => [e.index, e.orderNumber, e.path, e.reason, e.message]),
      };
    }

    it("keeps the good rows converted, null rows as they are, and reports each bad row in order", async () => {
      const text =
        '{"orders":[{"orderNumber":1,"totals":{"item":"2.50","order":null}},{"orderNumber":2,"totals":{"order":"x"}},null,{"orderNumber":4,"totals":{"tax":"y"}},{"orderNumber":5,"totals":{"tax":"-1"}}],"nextCursor":"n"}';
      const { body, rejected } = await rows("listOrders", text);
      const orders = body?.orders as ({
        orderNumber: number;
        totals: Record<string, unknown>;
      } | null)[];
      expect(orders.map((o) => o?.orderNumber ?? null)).toEqual([1, null, 5]);
      expect(decimalText(orders[0]?.totals.item)).toBe("2.5");
      expect(orders[0]?.totals.order).toBeNull();
      expect(decimalText(orders[2]?.totals.tax)).toBe("-1");
      expect(body?.nextCursor).toBe("n");
      expect(rejected).toEqual([
        [
          1,
          2,
          "orders[].totals.order",
          "text that is not a plain decimal",
          "The listOrders response has a value at orders[].totals.order that is not a decimal amount (orders[1], order 2).",
        ],
        [
          3,
          4,
          "orders[].totals.tax",
          "text that is not a plain decimal",
          "The listOrders response has a value at orders[].totals.tax that is not a decimal amount (orders[3], order 4).",
        ],
      ]);
    });

    it("a row is refused whole, even for a bad line deep inside it", async () => {
      const text =
        '{"submissions":[{"order":{"totalPrice":1,"lines":[{"lineListTotal":2},{"lineListTotal":"x"}]}},{"order":{"totalPrice":3,"lines":[]}}]}';
      const { body, rejected } = await rows("listSubmissions", text);
      const kept = body?.submissions as { order: { totalPrice: unknown } }[];
      expect(kept).toHaveLength(1);
      expect(decimalText(kept[0]?.order.totalPrice)).toBe("3");
      expect(rejected.map((r) => r.slice(0, 4))).toEqual([
        [0, undefined, "submissions[].order.lines[].lineListTotal", "text that is not a number"],
      ]);
    });

    it("a bad value outside the rows still refuses the body", async () => {
      const { ResponseDecodeError } = await import("../../../src/core/errors");
      const { decodeRows } = await import("../../../src/core/money");
      expect(() => decodeRows("getOrder", '{"totals":{"item":"x"}}')).toThrow(ResponseDecodeError);
      expect(() => decodeRows("listOrders", "[")).toThrow(
        "The listOrders response body is not valid JSON.",
      );
    });

    it("values outside the rows are converted as decodeBody converts them", async () => {
      const { body, rejected } = await rows("getOrder", '{"totals":{"item":"7.25","tax":null}}');
      const totals = body?.totals as Record<string, unknown>;
      expect(decimalText(totals.item)).toBe("7.25");
      expect(totals.tax).toBeNull();
      expect(rejected).toEqual([]);
    });

    it("a member that is a list where no list is expected is no list of rows", async () => {
      const { body, rejected } = await rows("getOrder", '{"totals":[{"item":"x"}]}');
      expect(body).toEqual({ totals: [{ item: "x" }] });
      expect(rejected).toEqual([]);
    });

    it.each([
      ["null", null],
      ["[1]", [1]],
      ['"text"', "text"],
      ['{"orders":{"totals":{"item":"x"}}}', { orders: { totals: { item: "x" } } }],
      ['{"nextCursor":null}', { nextCursor: null }],
    ])("a body of another shape, %s, is passed through untouched", async (text, expected) => {
      const { body, rejected } = await rows("listOrders", text);
      expect(body).toEqual(expected);
      expect(rejected).toEqual([]);
    });

    it("an operation without decimal fields is parsed and nothing is rejected", async () => {
      expect(await rows("getMe", '{"partnerId":"p"}')).toEqual({
        body: { partnerId: "p" },
        rejected: [],
      });
    });
  });
});
