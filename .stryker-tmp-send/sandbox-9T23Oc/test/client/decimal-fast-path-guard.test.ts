// @ts-nocheck
import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { fromDecimalText } from "../../src/core/decimal-text";

// The fast path writes decimal.js's private fields; package.json allows any decimal.js ^10.6.0. A
// release that changes those internals must not yield wrong amounts: the guard compares the fast
// path with the constructor once, and falls back to the constructor for good on any difference.
describe("the decimal fast path's guard", () => {
  it("with decimal.js as installed, the fast path is taken and agrees with the constructor", () => {
    const built = fromDecimalText(Decimal, "-12.3400000000");
    expect(built).toBeDefined();
    expect(built?.equals(new Decimal("-12.34"))).toBe(true);
  });

  it("a constructor whose internals differ (a planted difference) makes it fall back for good", () => {
    let constructed = 0;
    // Same public behaviour, other internals: digits kept as text, as a future release might do.
    class Planted {
      digits: string;
      constructor(text: string) {
        constructed++;
        this.digits = text;
      }
      toString() {
        return this.digits;
      }
    }
    const Ctor = Planted as unknown as typeof Decimal;
    expect(fromDecimalText(Ctor, "1.5")).toBeUndefined();
    const afterProbe = constructed;
    expect(afterProbe).toBeGreaterThan(0);
    expect(fromDecimalText(Ctor, "2.5")).toBeUndefined();
    // Decided once: no second probe.
    expect(constructed).toBe(afterProbe);
  });

  it("a constructor matching the fast path in every field keeps the fast path", () => {
    const Clone = Decimal.clone();
    const Same = function Same(this: unknown, text: string) {
      const value = new Clone(text);
      (value as { constructor: unknown }).constructor = Same;
      return value;
    } as unknown as typeof Decimal;
    Same.prototype = Clone.prototype;
    expect(fromDecimalText(Same, "1.5")?.toString()).toBe("1.5");
  });

  it("a subtler difference (an extra own field on constructed values) also makes it fall back", () => {
    const Clone = Decimal.clone();
    const Planted = function Planted(this: unknown, text: string) {
      const value = new Clone(text) as Decimal & { precisionTag?: number };
      value.precisionTag = 20;
      // Only the planted field differs: the fast path sets `constructor` the same way.
      (value as { constructor: unknown }).constructor = Planted;
      return value;
    } as unknown as typeof Decimal;
    Planted.prototype = Clone.prototype;
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });

  it("a difference in the digits (another base) makes it fall back", () => {
    const Clone = Decimal.clone();
    const Planted = function Planted(this: unknown, text: string) {
      const value = new Clone(text) as unknown as { d: number[] };
      value.d = [...value.d].reverse();
      (value as { constructor: unknown }).constructor = Planted;
      return value;
    } as unknown as typeof Decimal;
    Planted.prototype = Clone.prototype;
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });
});
