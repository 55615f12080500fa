import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromDecimalText } from "../../../src/core/decimal-text";
import { Decimal } from "../../../src/core/money";

/** Plain decimal text as the service sends it, leading and trailing zeros included. */
const decimalText = fc
  .tuple(
    fc.boolean(),
    fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: 30 }),
    fc.option(fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: 30 })),
  )
  .map(
    ([negative, whole, fraction]) =>
      `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`,
  );

const parts = (d: Decimal) => {
  const x = d as unknown as { s: number; e: number; d: number[] };
  return { s: x.s, e: x.e, d: x.d };
};

describe("fromDecimalText", () => {
  it("builds exactly the Decimal that new Decimal(text) builds", () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const fast = fromDecimalText(Decimal, text);
        const reference = new Decimal(text);
        expect(fast).toBeInstanceOf(Decimal);
        expect(parts(fast as Decimal)).toEqual(parts(reference));
        expect((fast as Decimal).toString()).toBe(reference.toString());
        expect((fast as Decimal).plus("0.1").times(3).equals(reference.plus("0.1").times(3))).toBe(
          true,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    "0.01",
    "0.00123456789012",
    "-0.0000001",
    "0.000000012345678",
    "10.00",
    "1234567.0000000",
    "00012345678.9",
    "1000000000.0",
    "-120000000000000.0000000000",
  ])("builds %s as decimal.js does: exponent below zero, words across the point", (text) => {
    expect(parts(fromDecimalText(Decimal, text) as Decimal)).toEqual(parts(new Decimal(text)));
  });

  it("keeps every digit of a 10-fractional-digit total", () => {
    expect(fromDecimalText(Decimal, "12345678901234.5678901234")?.toFixed(10)).toBe(
      "12345678901234.5678901234",
    );
    expect(fromDecimalText(Decimal, "-0.0000000001")?.toFixed(10)).toBe("-0.0000000001");
  });

  it.each(["1e5", "+1", ".5", "5.", "Infinity", "NaN", "0x10", "1,5", " 1", ""])(
    "leaves %j to decimal.js's own parser",
    (text) => {
      expect(fromDecimalText(Decimal, text)).toBeUndefined();
    },
  );
});
