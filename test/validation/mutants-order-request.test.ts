import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, validateOrderRequest } from "../../src/core/validation";
import { address, type Json, line, order } from "./requests";

/** A request without `key`. */
const without = (request: Json, key: string): Json => {
  const { [key]: _, ...rest } = request;
  return rest;
};

const unknownKey = "is not a field of";

describe("what each refusal of an order request says", () => {
  it("a request that is not an object says what it was", () => {
    expect(validateOrderRequest(null)).toEqual([
      { path: "", message: "must be a plain object, got null" },
    ]);
  });

  it("an unknown key names where it was found and that the service rejects it", () => {
    expect(
      validateOrderRequest(
        order({
          note: "x",
          shipTo: { ...address(), floor: 2 },
          lines: [line(0, { discount: 1 })],
        }),
      ),
    ).toEqual([
      {
        path: "note",
        message: `${unknownKey} an order request; the service rejects unknown keys`,
      },
      {
        path: "shipTo.floor",
        message: `${unknownKey} a shipTo; the service rejects unknown keys`,
      },
      {
        path: "lines[0].discount",
        message: `${unknownKey} an order line; the service rejects unknown keys`,
      },
    ]);
  });

  it("lines: required, an array, 1 to 100 entries", () => {
    expect(validateOrderRequest(without(order(), "lines"))).toEqual([
      { path: "lines", message: "is required: an array of 1 to 100 lines" },
    ]);
    expect(validateOrderRequest(order({ lines: "line-0" }))).toEqual([
      { path: "lines", message: "must be an array, got a string" },
    ]);
    expect(validateOrderRequest(order({ lines: [] }))).toEqual([
      { path: "lines", message: "must have 1 to 100 entries, got 0" },
    ]);
  });

  it("a line that is not an object says what it was", () => {
    expect(validateOrderRequest(order({ lines: [5] }))).toEqual([
      { path: "lines[0]", message: "must be an object, got 5" },
    ]);
  });

  it("templateVariables: the kind, the count, reserved keys and long keys each have a message", () => {
    const withVariables = (templateVariables: unknown) =>
      validateOrderRequest(order({ lines: [line(0, { templateVariables })] }));
    expect(withVariables(["a"])).toEqual([
      {
        path: "lines[0].templateVariables",
        message: "must be an object of string to string, got an array",
      },
    ]);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, "x"]));
    expect(withVariables(many)).toEqual([
      { path: "lines[0].templateVariables", message: "must have at most 50 entries, got 51" },
    ]);
    expect(withVariables({ constructor: "x" })).toEqual([
      {
        path: "lines[0].templateVariables.constructor",
        message: 'key "constructor" is refused: __proto__, constructor and prototype are reserved',
      },
    ]);
    const longKey = "k".repeat(101);
    expect(withVariables({ [longKey]: "x" })).toEqual([
      {
        path: `lines[0].templateVariables.${longKey}`,
        message: "key must be at most 100 characters",
      },
    ]);
  });

  it("a shipTo that is not an object says what it was", () => {
    expect(validateOrderRequest(order({ shipTo: "1 Main St" }))).toEqual([
      { path: "shipTo", message: "must be an object, got a string" },
    ]);
  });

  it("email on a line's shipTo says it belongs on the order-level one", () => {
    const lines = [line(0, { shipTo: { ...address(), email: "a@b.c" } })];
    expect(validateOrderRequest(order({ shipTo: undefined, lines }))).toEqual([
      {
        path: "lines[0].shipTo.email",
        message: "is accepted only on the order-level shipTo, never on a line",
      },
    ]);
  });

  it("country: required, a string, two letters", () => {
    const withCountry = (country: unknown) =>
      validateOrderRequest(order({ shipTo: { ...address(), country } }));
    expect(withCountry(undefined)).toEqual([
      { path: "shipTo.country", message: "is required: an ISO 3166-1 alpha-2 code such as US" },
    ]);
    expect(withCountry(12)).toEqual([
      { path: "shipTo.country", message: "must be a string, got 12" },
    ]);
    // An array holding the code would be sent as an array, not as the code.
    expect(withCountry(["US"])).toEqual([
      { path: "shipTo.country", message: "must be a string, got an array" },
    ]);
    expect(withCountry("USA")).toEqual([
      {
        path: "shipTo.country",
        message: "must be an ISO 3166-1 alpha-2 code: exactly 2 letters, such as US",
      },
    ]);
    expect(withCountry("gb")).toEqual([]);
  });

  it("partnerLineIds that are not strings are refused as such, never as duplicates", () => {
    const lines = [line(0, { partnerLineId: 5 }), line(1, { partnerLineId: 5 })];
    expect(validateOrderRequest(order({ lines }))).toEqual([
      { path: "lines[0].partnerLineId", message: "must be a string, got 5" },
      { path: "lines[1].partnerLineId", message: "must be a string, got 5" },
    ]);
  });

  it("each wrong shipTo placement says how to place it", () => {
    const both = order({ lines: [line(0, { shipTo: address() })] });
    expect(validateOrderRequest(both)).toEqual([
      {
        path: "lines[0].shipTo",
        message:
          "must not be given with an order-level shipTo: use the order-level one or one on every line",
      },
    ]);
    expect(validateOrderRequest(order({ shipTo: undefined }))).toEqual([
      {
        path: "shipTo",
        message: "is required: give an order-level shipTo or a shipTo on every line",
      },
    ]);
    const some = order({ shipTo: undefined, lines: [line(0, { shipTo: address() }), line(1)] });
    expect(validateOrderRequest(some)).toEqual([
      {
        path: "lines[1].shipTo",
        message:
          "is required: other lines carry a shipTo, so every line must (or use one order-level shipTo)",
      },
    ]);
  });

  it("a value JSON cannot encode is named as such, not as a cycle", () => {
    expect(validateOrderRequest(order({ lines: [line(0, { sku: 1n })] }))).toEqual([
      { path: "lines[0].sku", message: "must be a string, got a bigint" },
      {
        path: "",
        message: "cannot be sent as JSON: it holds a value JSON cannot encode (a bigint, say)",
      },
    ]);
  });
});

describe("a lines array too long to fit in the body", () => {
  // Every entry takes at least 2 bytes of JSON, so an array of more than MAX_BODY_BYTES / 2
  // entries cannot fit, whatever its entries hold.
  const longest = MAX_BODY_BYTES / 2;
  const sparse = (length: number): unknown[] => {
    const lines: unknown[] = [];
    lines.length = length;
    return lines;
  };

  it("past MAX_BODY_BYTES / 2 entries: refused for its count and size, entries not listed", () => {
    expect(validateOrderRequest(order({ lines: sparse(longest + 1) }))).toEqual([
      { path: "lines", message: `must have 1 to 100 entries, got ${longest + 1}` },
      { path: "", message: "body is larger than 262144 bytes of UTF-8 JSON (256 KiB)" },
    ]);
  });

  it("at MAX_BODY_BYTES / 2 entries, each entry is still checked and the body measured", () => {
    const violations = validateOrderRequest(order({ lines: sparse(longest) }));
    expect(violations).toHaveLength(1 + longest + 1);
    expect(violations[1]).toEqual({ path: "lines[0]", message: "must be an object, got nothing" });
    // A hole is sent as null: 4 bytes and a comma each.
    expect(violations.at(-1)?.message).toMatch(/^body is \d+ bytes of UTF-8 JSON; at most 262144/);
  });
});
