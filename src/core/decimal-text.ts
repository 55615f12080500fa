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

/**
 * The object `new Ctor(text)` builds for plain decimal text, made without its parser: as decimal.js's
 * parseDecimal (sign, base-10 exponent, leading and trailing zeros dropped, digits in base-1e7 words
 * with the first word aligned to the exponent), read from the character codes without building
 * intermediate strings.
 */
function build<D extends DecimalJs>(Ctor: new (value: string) => D, text: string): D {
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  const end = text.length;
  let point = text.indexOf(".", start);
  // Stryker disable next-line EqualityOperator: equivalent, plain decimal text never starts with its point
  if (point < 0) point = end;
  // First and last significant digit, as positions in the text (the point skipped over).
  let first = start;
  while (first < end && (text.charCodeAt(first) === 48 || first === point)) first++;
  let last = end;
  while (last > first && (text.charCodeAt(last - 1) === 48 || last - 1 === point)) last--;
  const x = Object.create(Ctor.prototype) as D & {
    constructor: unknown;
    s: number;
    e: number;
    d: number[];
  };
  x.constructor = Ctor;
  x.s = negative ? -1 : 1;
  if (first === last) {
    x.e = 0;
    x.d = [0];
    return x;
  }
  // The exponent: digits between the first significant one and the point, less one.
  // Stryker disable next-line EqualityOperator: equivalent, the scan above never stops on the point
  const e = first < point ? point - first - 1 : point - first;
  x.e = e;
  // The first word holds (e + 1) mod 7 digits (7 when that is 0), every later word 7, and the last
  // word is filled out with zeros to its size.
  let size = (e + 1) % LOG_BASE;
  if (e < 0) size += LOG_BASE;
  if (size === 0) size = LOG_BASE;
  const d: number[] = [];
  let word = 0;
  let filled = 0;
  for (let k = first; k < last; k++) {
    if (k === point) continue;
    word = word * 10 + text.charCodeAt(k) - 48;
    if (++filled === size) {
      d.push(word);
      word = 0;
      filled = 0;
      size = LOG_BASE;
    }
  }
  if (filled > 0) {
    for (; filled < size; filled++) word *= 10;
    d.push(word);
  }
  x.d = d;
  return x;
}
