import type { Decimal as DecimalJs } from "decimal.js";

const plainDecimal = /^-?\d+(?:\.\d+)?$/;
const LOG_BASE = 7;

/** `new Ctor(text)` without decimal.js's parser, which costs more than `JSON.parse` of the page. */
export function fromDecimalText<D extends DecimalJs>(
  Ctor: new (value: string) => D,
  text: string,
): D | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, the bound only spares a test
  if (text.length > 200 || !plainDecimal.test(text)) return undefined;
  if (!fastPathHolds(Ctor)) return undefined;
  return build(Ctor, text);
}

// Zeros, signs, base-1e7 word boundaries on both sides of the point, leading and trailing zeros.
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

const verdicts = new WeakMap<object, boolean>();

// The fast path writes decimal.js's private fields, which `^10.6.0` does not pin: checked once.
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

function sameDecimal(expected: object, built: object): boolean {
  if (Object.getPrototypeOf(expected) !== Object.getPrototypeOf(built)) return false;
  const keys = Object.keys(expected).sort();
  if (keys.join() !== Object.keys(built).sort().join()) return false;
  const a = expected as Record<string, unknown>;
  const b = built as Record<string, unknown>;
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent, String() below differs too
    const same = Array.isArray(x) && Array.isArray(y) ? x.join() === y.join() : Object.is(x, y);
    if (!same) return false;
  }
  return String(expected) === String(built);
}

function build<D extends DecimalJs>(Ctor: new (value: string) => D, text: string): D {
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  const end = text.length;
  let point = text.indexOf(".", start);
  // Stryker disable next-line EqualityOperator: equivalent, plain decimal text never starts with its point
  if (point < 0) point = end;
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
  // Stryker disable next-line EqualityOperator: equivalent, the scan above never stops on the point
  const e = first < point ? point - first - 1 : point - first;
  x.e = e;
  // The first word holds (e + 1) mod 7 digits (7 for 0), later ones 7, the last zero-filled.
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
