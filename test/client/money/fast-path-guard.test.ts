import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { fromDecimalText } from "../../../src/core/decimal-text";

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

  /** A constructor built on a clone of decimal.js whose values are changed by `plant`. */
  function plantedOn(plant: (value: Decimal) => void) {
    const Clone = Decimal.clone();
    const Planted = function Planted(this: unknown, text: string) {
      const value = new Clone(text);
      (value as { constructor: unknown }).constructor = Planted;
      plant(value);
      return value;
    } as unknown as typeof Decimal;
    // The clone's settings too, so both ways of building a value print it alike.
    Object.assign(Planted, Clone);
    Planted.prototype = Clone.prototype;
    return { Clone, Planted };
  }

  it("a constructor that throws on the probes makes it fall back for good, without throwing", () => {
    let constructed = 0;
    const Throwing = function Throwing() {
      constructed++;
      throw new Error("internals changed");
    } as unknown as typeof Decimal;
    expect(fromDecimalText(Throwing, "1.5")).toBeUndefined();
    expect(constructed).toBe(1);
    expect(fromDecimalText(Throwing, "2.5")).toBeUndefined();
    expect(constructed).toBe(1);
  });

  it("values of another prototype, with the same fields and text, make it fall back", () => {
    const { Planted } = plantedOn(() => {});
    // The constructor's values keep decimal.js's prototype; the fast path would use Planted's own.
    Planted.prototype = Object.create(Decimal.clone().prototype);
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });

  it("values without the own constructor field make it fall back", () => {
    const { Planted } = plantedOn((value) => {
      delete (value as { constructor?: unknown }).constructor;
    });
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });

  it("values whose constructor field names another constructor make it fall back", () => {
    const { Clone, Planted } = plantedOn((value) => {
      (value as { constructor: unknown }).constructor = Clone;
    });
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });

  it("values that keep their digits out of sight (text only the constructor knows) make it fall back", () => {
    const hidden = new WeakMap<object, string>();
    const { Clone, Planted } = plantedOn((value) => {
      hidden.set(value, "hidden");
      // Same prototype on both sides: only what the values print can tell them apart.
      Object.setPrototypeOf(value, Planted.prototype);
    });
    Planted.prototype = Object.create(Clone.prototype, {
      toString: {
        value(this: object) {
          return hidden.get(this) ?? "lost";
        },
      },
    });
    // The fields agree, but the constructor's values carry state the fast path cannot write.
    expect(fromDecimalText(Planted, "1.5")).toBeUndefined();
  });
});
