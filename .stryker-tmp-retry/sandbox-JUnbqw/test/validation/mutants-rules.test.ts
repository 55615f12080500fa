// @ts-nocheck
import { runInNewContext } from "node:vm";
import { expect, describe as group, it } from "vitest";
import type { Violation } from "../../src/core/errors";
import {
  checkPositiveInteger,
  checkPrintableId,
  checkProductIdValue,
  checkString,
  collectInto,
  describe,
  isPlainObject,
  isPositiveSafeInteger,
  longerThan,
  positiveIntegerProblem,
  type Report,
} from "../../src/core/validation/rules";

/** Runs one field checker and gives what it reported. */
function reported(check: (report: Report) => void): Violation[] {
  const violations: Violation[] = [];
  check(collectInto(violations));
  return violations;
}

group("what a message says a wrong value was, without echoing text", () => {
  it.each([
    ["null", null, "null"],
    ["an array", [1], "an array"],
    ["a number, as it is", 12.5, "12.5"],
    ["a string, never its text", "a@b.c", "a string"],
    ["a boolean", false, "a boolean (false)"],
    ["undefined", undefined, "nothing"],
    ["a bigint", 12n, "a bigint"],
    ["a plain object", { a: 1 }, "an object"],
    ["a Date", new Date(0), "a non-plain object"],
    ["a symbol", Symbol("s"), "a symbol"],
    ["a function", () => 1, "a function"],
  ])("%s", (_name, value, expected) => {
    expect(describe(value)).toBe(expected);
  });
});

group("why a value is not a positive integer", () => {
  it("an integer past 2^53 - 1 is refused for its size, not its kind", () => {
    expect(positiveIntegerProblem(2 ** 53)).toBe(
      "is above 9007199254740991 (2^53 - 1), past which a JavaScript number is not exact, so it " +
        "cannot be sent unchanged; got 9007199254740992",
    );
  });

  it.each([
    [0, "must be a positive integer, got 0"],
    [-1, "must be a positive integer, got -1"],
    [-(2 ** 53), "must be a positive integer, got -9007199254740992"],
    [1.5, "must be a positive integer, got 1.5"],
    ["5", "must be a positive integer, got a string"],
    [[7], "must be a positive integer, got an array"],
  ])("%j is not a positive integer at all", (value, message) => {
    expect(positiveIntegerProblem(value)).toBe(message);
  });

  it.each([1, Number.MAX_SAFE_INTEGER])("%s is a positive safe integer", (value) => {
    expect(isPositiveSafeInteger(value)).toBe(true);
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, "5", null, [1]])("%j is not", (value) => {
    expect(isPositiveSafeInteger(value)).toBe(false);
  });
});

group("plain objects, as JSON sends them", () => {
  it("an object made in another realm (a vm context, an iframe) is plain", () => {
    expect(isPlainObject(runInNewContext("({ siteId: 1 })"))).toBe(true);
    expect(isPlainObject(runInNewContext("Object.create(null)"))).toBe(true);
  });

  it("literals and null-prototype objects are plain; instances, arrays and tagged objects are not", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(new (class Order {})())).toBe(false);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject({ [Symbol.toStringTag]: "Order" })).toBe(false);
    expect(isPlainObject({ *[Symbol.iterator]() {} })).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject("{}")).toBe(false);
  });
});

group("lengths in code points", () => {
  it("a text of exactly max characters is not longer; one more is", () => {
    expect(longerThan("abc", 3)).toBe(false);
    expect(longerThan("abcd", 3)).toBe(true);
    expect(longerThan("", 0)).toBe(false);
    expect(longerThan("a", 0)).toBe(true);
  });

  it("an emoji is one character, though it takes two UTF-16 units", () => {
    expect(longerThan("😀😀😀", 3)).toBe(false);
    expect(longerThan("😀😀😀😀", 3)).toBe(true);
    expect(longerThan("😀a😀", 3)).toBe(false);
  });

  it("a very long text is longer", () => {
    expect(longerThan("x".repeat(1_000_000), 2000)).toBe(true);
  });
});

group("field messages", () => {
  it("a required positive integer left out says so; an optional one is fine", () => {
    expect(reported((r) => checkPositiveInteger(undefined, "siteId", r, true))).toEqual([
      { path: "siteId", message: "is required: a positive integer" },
    ]);
    expect(reported((r) => checkPositiveInteger(undefined, "variantId", r, false))).toEqual([]);
    expect(reported((r) => checkPositiveInteger(0, "quantity", r, true))).toEqual([
      { path: "quantity", message: "must be a positive integer, got 0" },
    ]);
  });

  it("a string field: required, of the right type, within its length counted in code points", () => {
    const options = { max: 3, required: true };
    expect(reported((r) => checkString(undefined, "name", r, options))).toEqual([
      { path: "name", message: "is required: a string of up to 3 characters" },
    ]);
    expect(reported((r) => checkString(undefined, "sku", r, { max: 3, required: false }))).toEqual(
      [],
    );
    expect(reported((r) => checkString(42, "name", r, options))).toEqual([
      { path: "name", message: "must be a string, got 42" },
    ]);
    expect(reported((r) => checkString("😀😀😀😀", "name", r, options))).toEqual([
      { path: "name", message: "must be at most 3 characters, got 4" },
    ]);
    expect(reported((r) => checkString("😀😀😀", "name", r, options))).toEqual([]);
  });

  it("partnerOrderId and partnerLineId: each broken rule has its own message", () => {
    const check = (value: unknown) => reported((r) => checkPrintableId(value, "partnerOrderId", r));
    expect(check(undefined)).toEqual([
      { path: "partnerOrderId", message: "is required: 1 to 100 printable ASCII characters" },
    ]);
    expect(check(7)).toEqual([{ path: "partnerOrderId", message: "must be a string, got 7" }]);
    expect(check("")).toEqual([
      { path: "partnerOrderId", message: "must not be empty: 1 to 100 printable ASCII characters" },
    ]);
    expect(check("x".repeat(101))).toEqual([
      { path: "partnerOrderId", message: "must be at most 100 characters, got 101" },
    ]);
    expect(check("PO-\u00e9")).toEqual([
      {
        path: "partnerOrderId",
        message: "must contain only printable ASCII characters (0x20 to 0x7E)",
      },
    ]);
    expect(check(" ~".repeat(50))).toEqual([]);
  });

  it("a productId: required, a string, the documented format", () => {
    const check = (value: unknown) => reported((r) => checkProductIdValue(value, "productId", r));
    expect(check(undefined)).toEqual([
      { path: "productId", message: "is required: SLO_ or SLS_ followed by 1 to 18 digits" },
    ]);
    expect(check(123)).toEqual([{ path: "productId", message: "must be a string, got 123" }]);
    expect(check(["SLO_1"])).toEqual([
      { path: "productId", message: "must be a string, got an array" },
    ]);
    expect(check("SLO_1234567890123456789")).toEqual([
      {
        path: "productId",
        message: "must be SLO_ or SLS_ followed by 1 to 18 digits (at most 24 characters)",
      },
    ]);
    expect(check("SLS_123456789012345678")).toEqual([]);
  });
});
