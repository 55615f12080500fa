import { PartnerOrders, RequestValidationError } from "partner-orders";
import { createSandbox } from "partner-orders/testing";
import { afterAll, describe, expect, it } from "vitest";
import { parseJsonKeepingNumbers } from "../../../src/core/json";
import { rejection } from "../../support/client";

/**
 * A JavaScript number is exact only up to 2^53 - 1, while the API's positive integers have no
 * ceiling: the SDK refuses a larger one before sending (it would arrive rounded, naming another
 * record), with a message that says it is too large, not "not a positive integer".
 */
const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
const client = new PartnerOrders({
  baseUrl: sandbox.baseUrl,
  ...sandbox.credentials,
  fetch: sandbox.fetch,
  clock: sandbox.clock,
});
afterAll(() => sandbox.close());

// 2^53 + 2 is a double exactly, so the value under test is the value the caller wrote.
const UNSAFE = 2 ** 53 + 2;
const tooLarge = /is above 9007199254740991 \(2\^53 - 1\)/;

async function refused(call: PromiseLike<unknown>, path: string) {
  const before = sandbox.requests.length;
  const error = await rejection(call);
  expect(error).toBeInstanceOf(RequestValidationError);
  const violation = (error as RequestValidationError).violations.find((v) => v.path === path);
  expect(violation?.message).toMatch(tooLarge);
  expect(sandbox.requests.length, "nothing may be sent").toBe(before);
}

const line = {
  productId: sandbox.fixtures.products.stockTracked,
  variantId: sandbox.fixtures.variants.plenty,
  partnerLineId: "line-1",
  quantity: 1,
};
const order = (patch: Record<string, unknown>, linePatch: Record<string, unknown> = {}) => ({
  siteId: sandbox.fixtures.sites.main,
  partnerOrderId: "po-big",
  shipTo: {
    name: "Ada",
    address1: "1 Way",
    city: "London",
    state: "LDN",
    postalCode: "N1",
    country: "GB",
  },
  lines: [{ ...line, ...linePatch }],
  ...patch,
});

describe("integers above 2^53 - 1 are refused before sending", () => {
  it("in an order request: siteId, a line's quantity and variantId", async () => {
    await refused(client.orders.submit(order({ siteId: UNSAFE })), "siteId");
    await refused(client.orders.submit(order({}, { quantity: UNSAFE })), "lines[0].quantity");
    await refused(
      client.submitOrderAndWait(order({}, { variantId: UNSAFE })),
      "lines[0].variantId",
    );
  });

  it("in parameters: a siteId filter, an order number (number or digits), a quote quantity", async () => {
    await refused(client.orders.list({ siteId: UNSAFE }), "siteId");
    await refused(client.products.list({ siteId: UNSAFE }), "siteId");
    await refused(client.orders.get(UNSAFE), "orderNumber");
    await refused(client.orders.get("9007199254740993" as unknown as number), "orderNumber");
    await refused(client.products.quote(sandbox.fixtures.products.pod, UNSAFE), "quantity");
  });

  it("still sends the largest exact one, which the sandbox answers by its rules", async () => {
    const error = await rejection(client.orders.get(Number.MAX_SAFE_INTEGER));
    expect(error).toMatchObject({ status: 404, code: "order_not_found" });
  });
});

// The reader behind number-encoded money (API.md, "Money"): the numbers at the kept paths come back
// as the exact text the server wrote, and everything else is what JSON.parse gives, refusals included.
const none: ReadonlySet<string> = new Set();
const keep = (...paths: string[]): ReadonlySet<string> => new Set(paths);

describe("a body without kept numbers reads as JSON.parse reads it", () => {
  it.each([
    ["spaces", ' { "a" : [ 1 , 2 ] , "b" : "x" } '],
    ["tabs", '\t{\t"a"\t:\t[\t1\t,\t2\t]\t,\t"b"\t:\t"x"\t}\t'],
    ["line feeds", '\n{\n"a"\n:\n[\n1\n,\n2\n]\n,\n"b"\n:\n"x"\n}\n'],
    ["carriage returns", '\r{\r"a"\r:\r[\r1\r,\r2\r]\r,\r"b"\r:\r"x"\r}\r'],
    ["an empty object and an empty array", '{"o":{},"a":[],"s":{ },"t":[ ]}'],
    ["literals", '{"t":true,"f":false,"n":null,"l":[true,false,null]}'],
    ["numbers of every form", "[0,-0,7,-12.5,1e3,2E-2,3.5e+1,120]"],
    ["escapes in keys and strings", '{"a\\"b":"c\\\\","q\\\\":"\\"","u":"\\u00e9\\n"}'],
    ["nested arrays", "[[1,[2]],[],[[3]]]"],
    ["a bare string", '"text"'],
    ["a bare number", "42"],
  ])("%s", (_name, text) => {
    expect(parseJsonKeepingNumbers(text, none)).toEqual(JSON.parse(text));
  });

  it("a __proto__ member is an own member, as JSON.parse makes it, and changes no prototype", () => {
    const text = '{"__proto__":{"polluted":1},"a":1}';
    const read = parseJsonKeepingNumbers(text, none) as Record<string, unknown>;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.hasOwn(read, "__proto__")).toBe(true);
    expect(read).toEqual(JSON.parse(text));
    expect(Object.keys(read)).toEqual(["__proto__", "a"]);
    // The members it made can be replaced, as on any parsed object (money conversion does).
    read.a = 2;
    expect(read.a).toBe(2);
    expect(delete read.a).toBe(true);
  });

  it.each([
    ["an empty body", ""],
    ["only spaces", "   "],
    ["a missing colon", '{"a" 1}'],
    ["a missing comma between members", '{"a":1 "b":2}'],
    ["a missing comma between elements", "[1 2]"],
    ["a trailing comma in an object", '{"a":1,}'],
    ["a trailing comma in an array", "[1,]"],
    ["an unclosed object", '{"a":1'],
    ["an unclosed array", "[1"],
    ["a key that is not a string", "{a:1}"],
    ["an unterminated string", '{"a":"bc'],
    ["a string ending in a backslash", '"abc\\'],
    ["a misspelt literal", "[tru]"],
    ["a literal cut short", "nul"],
    ["a number with a plus", "+1"],
    ["a number with a leading zero", "01"],
    ["a fraction without digits", "1."],
    ["a word", "undefined"],
    ["text after the value", '{"a":1} x'],
    ["a second value", "1 2"],
    ["a closing bracket of the wrong kind", '{"a":[1}]'],
    ["another character in place of the colon", '{"a"x1}'],
    ["another character in place of the closing brace", '{"a":1x'],
    ["another character in place of the closing bracket", "[1x"],
    ["a key without its opening quote", '{a":1}'],
    ["a number as a key", "{1:2}"],
    ["a missing element", "[,1]"],
    ["a missing member value", '{"a":}'],
    ["a misspelt true", "[trux]"],
    ["a misspelt false", "[falsx]"],
    ["a misspelt null", "[nulx]"],
  ])("%s is refused, as JSON.parse refuses it", (_name, text) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(() => parseJsonKeepingNumbers(text, none)).toThrow();
  });
});

describe("kept numbers", () => {
  it("a top-level member keeps its text, 17 significant digits and an exponent included", () => {
    const text = '{"totalPrice":12345678901234.567,"other":12345678901234.567,"e":1.50e+3}';
    expect(parseJsonKeepingNumbers(text, keep("totalPrice", "e"))).toEqual({
      totalPrice: "12345678901234.567",
      other: JSON.parse("12345678901234.567"),
      e: "1.50e+3",
    });
  });

  it("nested members are addressed by their dotted path, array elements by key[]", () => {
    const text =
      '{"order":{"totalPrice":1.10,"lines":[{"lineListTotal":2.20,"quantity":3},' +
      '{"lineListTotal":-0.5,"quantity":1}],"projectId":4},"totalPrice":5.50}';
    const read = parseJsonKeepingNumbers(
      text,
      keep("order.totalPrice", "order.lines[].lineListTotal"),
    );
    expect(read).toEqual({
      order: {
        totalPrice: "1.10",
        lines: [
          { lineListTotal: "2.20", quantity: 3 },
          { lineListTotal: "-0.5", quantity: 1 },
        ],
        projectId: 4,
      },
      totalPrice: 5.5,
    });
  });

  it("a member after an array is addressed from its own object again", () => {
    const text = '{"order":{"lines":[{"a":1}],"totalPrice":2.50},"lines":[3.0]}';
    expect(parseJsonKeepingNumbers(text, keep("order.totalPrice", "lines[]"))).toEqual({
      order: { lines: [{ a: 1 }], totalPrice: "2.50" },
      lines: ["3.0"],
    });
  });

  it("an element after a nested array is addressed as an element again", () => {
    expect(parseJsonKeepingNumbers('{"a":[[1.0],2.0]}', keep("a[]"))).toEqual({
      a: [[1], "2.0"],
    });
    expect(parseJsonKeepingNumbers('{"a":[[1.0],2.0]}', keep("a[][]"))).toEqual({
      a: [["1.0"], 2],
    });
  });

  it("elements of a top-level array are addressed as []", () => {
    expect(parseJsonKeepingNumbers("[1.0,[2.0],3.0]", keep("[]"))).toEqual(["1.0", [2], "3.0"]);
    expect(parseJsonKeepingNumbers("[1.0,[2.0]]", keep("[][]"))).toEqual([1, ["2.0"]]);
  });

  it("a kept number is the number's text only, whatever surrounds it", () => {
    expect(parseJsonKeepingNumbers('{ "p" : 0.10 , "q" : 1 }', keep("p"))).toEqual({
      p: "0.10",
      q: 1,
    });
    expect(parseJsonKeepingNumbers('{"p":-0.0}', keep("p"))).toEqual({ p: "-0.0" });
  });

  it("a string or literal at a kept path is left as it is", () => {
    expect(parseJsonKeepingNumbers('{"p":"1.5","q":null,"r":true}', keep("p", "q", "r"))).toEqual({
      p: "1.5",
      q: null,
      r: true,
    });
  });
});
