import type { Decimal as DecimalJs } from "decimal.js";

/** The plain decimal text the service sends (`-12.3400000000`): no exponent, no `+`, no `.5`. */
const plainDecimal = /^-?\d+(?:\.\d+)?$/;
/** decimal.js keeps its digits in base 1e7 words. */
const LOG_BASE = 7;

/**
 * `new Ctor(text)` for the plain decimal text of a money field, built without decimal.js's general
 * string parser, which accepts far more forms (exponents, hex, `Infinity`) than the service sends and
 * costs more than `JSON.parse` of the page itself. The result is the same object decimal.js would
 * build (same `s`, `e` and `d`, which a property test holds against `new Decimal(text)`); any other
 * text returns undefined and goes through the constructor.
 */
export function fromDecimalText<D extends DecimalJs>(
  Ctor: new (value: string) => D,
  text: string,
): D | undefined {
  // The bound only spares the test of a huge text; the constructor builds the same value from it.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, see above
  if (text.length > 200 || !plainDecimal.test(text)) return undefined;
  if (!fastPathHolds(Ctor)) return undefined;
  return build(Ctor, text);
}

/**
 * Texts whose fast-path result is compared with decimal.js's own: zeros, signs, word boundaries of
 * the base-1e7 digits on both sides of the point, leading and trailing zeros, 10-digit fractions.
 */
const probes = [
  "0",
  "-0",
  "0.0000000000",
  "1",
  "-1",
  "1234567",
  "12345678",
  "-12.3400000000",
  "0.1234567",
  "0.00000001",
  "000120.0500",
  "12345678901234.1234567891",
  "-99999999999999.9999999999",
];

/** Constructors whose internals were checked, with the verdict; decided once per constructor. */
const verdicts = new WeakMap<object, boolean>();

/**
 * The fast path writes decimal.js's private fields (`s`, `e`, `d`), which package.json does not pin
 * (`^10.6.0`). On first use with a constructor, its results for the probes are compared with
 * `new Ctor(text)`, value and structure (own fields, prototype, constructor); on any difference the
 * fast path is dropped for good and every text goes through the constructor.
 */
function fastPathHolds(Ctor: new (value: string) => DecimalJs): boolean {
  let verdict = verdicts.get(Ctor);
  if (verdict === undefined) {
    try {
      verdict = probes.every((text) => sameDecimal(new Ctor(text), build(Ctor, text)));
    } catch {
      verdict = false;
    }
    verdicts.set(Ctor, verdict);
  }
  return verdict;
}

/** Both values come from `new` or from {@link build}, so both are objects. */
function sameDecimal(expected: object, built: object): boolean {
  if (Object.getPrototypeOf(expected) !== Object.getPrototypeOf(built)) return false;
  const keys = Object.keys(expected).sort();
  if (keys.join() !== Object.keys(built).sort().join()) return false;
  const a = expected as Record<string, unknown>;
  const b = built as Record<string, unknown>;
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    // Digit words are compared as arrays, anything else by identity. A field that is an array on
    // one side only is no match either way (Object.is, or a join that throws and drops the fast path).
    // Words that differ also print differently, which the String() comparison below catches.
    // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, see above
    const same = Array.isArray(x) && Array.isArray(y) ? x.join() === y.join() : Object.is(x, y);
    if (!same) return false;
  }
  return String(expected) === String(built);
}

/** The object `new Ctor(text)` builds for plain decimal text, made without its parser. */
function build<D extends DecimalJs>(Ctor: new (value: string) => D, text: string): D {
  let s = 1;
  let str = text;
  if (str.charCodeAt(0) === 45) {
    s = -1;
    str = str.slice(1);
  }
  // As decimal.js's parseDecimal: base-10 exponent, zeros stripped, digits in base-1e7 words.
  let e = str.indexOf(".");
  if (e > -1) str = str.replace(".", "");
  else e = str.length;
  let i = 0;
  while (str.charCodeAt(i) === 48) i++;
  let len = str.length;
  // No bound at i: a text of zeros only runs down to 0, and the slice below is empty either way.
  while (str.charCodeAt(len - 1) === 48) len--;
  str = str.slice(i, len);
  const x = Object.create(Ctor.prototype) as D & {
    constructor: unknown;
    s: number;
    e: number;
    d: number[];
  };
  x.constructor = Ctor;
  x.s = s;
  if (!str) {
    x.e = 0;
    x.d = [0];
    return x;
  }
  len -= i;
  e = e - i - 1;
  x.e = e;
  const d: number[] = [];
  i = (e + 1) % LOG_BASE;
  if (e < 0) i += LOG_BASE;
  if (i < len) {
    if (i) d.push(+str.slice(0, i));
    for (len -= LOG_BASE; i < len; i += LOG_BASE) d.push(+str.slice(i, i + LOG_BASE));
    str = str.slice(i);
    i = LOG_BASE - str.length;
  } else {
    i -= len;
  }
  while (i-- > 0) str += "0";
  d.push(+str);
  x.d = d;
  return x;
}
