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
  if (text.length > 200 || !plainDecimal.test(text)) return undefined;
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
  while (len > i && str.charCodeAt(len - 1) === 48) len--;
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
