// @ts-nocheck
import type { Violation } from "../errors";

/** Where a checker puts what it finds; checkers never stop at the first violation. */
export type Report = (path: string, message: string) => void;

/** A reporter that appends to `violations`. */
export function collectInto(violations: Violation[]): Report {
  return (path, message) => {
    violations.push({ path, message });
  };
}

/** `SLO_` (site-owned) or `SLS_` (shared to the site), then 1 to 18 digits (API document, Product). */
export const PRODUCT_ID_PATTERN = /^(SLO|SLS)_[0-9]{1,18}$/;

/** Printable ASCII, 0x20 to 0x7E, as partnerOrderId and partnerLineId require (API document, Limits). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * A plain object: `{}` literals, `JSON.parse` output and `Object.create(null)`, also from another
 * realm (a prototype whose own prototype is null). Class instances, arrays, Maps and Dates are not:
 * JSON would send something other than what the caller sees.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  // Object.prototype of any realm is itself an object whose prototype is null.
  const plain = prototype === null || Object.getPrototypeOf(prototype) === null;
  return plain && !(Symbol.toStringTag in value) && !(Symbol.iterator in value);
}

/** Integers above 2^53 - 1 cannot be sent exactly, so "positive integer" means a safe one here. */
export function isPositiveSafeInteger(value: unknown): value is number {
  // Number.isSafeInteger is false for anything but a number, so the comparison reads a number.
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * Why `value` is not a positive safe integer. The API has no ceiling on these integers (API
 * document, Limits), but a JavaScript number above 2^53 - 1 is already rounded (9007199254740993
 * reads as 9007199254740992), so sending it would name another site, variant or order: such a value
 * is refused before sending, and the message says that it is the size, not the kind, of number.
 */
export function positiveIntegerProblem(value: unknown): string {
  // Number.isInteger is false for anything but a number, so the comparison reads a number.
  if (Number.isInteger(value) && (value as number) > 0) {
    return `is above ${Number.MAX_SAFE_INTEGER} (2^53 - 1), past which a JavaScript number is not exact, so it cannot be sent unchanged; got ${value}`;
  }
  return `must be a positive integer, got ${describe(value)}`;
}

/**
 * The value of `key` as `JSON.stringify` would send it: own and enumerable, and `undefined` (which
 * JSON drops) reads as absent. Inherited values are never sent, so they are never read.
 */
export function sent(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.propertyIsEnumerable.call(object, key) ? object[key] : undefined;
}

/** The keys `JSON.stringify` would send. `Object.keys` also sees an own `__proto__` from JSON.parse. */
export function sentKeys(object: Record<string, unknown>): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}

/** `parent.key`, or `parent["a key"]` when the key is not an identifier, so a path stays readable. */
export function childPath(parent: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

/**
 * Whether `text` has more than `max` characters, counted in Unicode code points. The API document
 * gives lengths in "chars" without saying how it counts; code points are the most lenient reading
 * (never more than UTF-16 units or UTF-8 bytes), so the client never refuses a value the service
 * accepts, and an emoji counts as one character as a person would count it.
 */
export function longerThan(text: string, max: number): boolean {
  // Counting stops at max + 1, so a 5 MB value costs no more than one at the limit.
  let count = 0;
  for (const _ of text) {
    count++;
    if (count > max) return true;
  }
  return false;
}

/** The number of Unicode code points in `text`, without allocating them. */
export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A short, value-free description for messages (addresses and job data are not echoed). */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "number":
      return String(value);
    case "boolean":
      return `a boolean (${value})`;
    case "undefined":
      return "nothing";
    case "object":
      return isPlainObject(value) ? "an object" : "a non-plain object";
    default:
      // "a string", "a bigint", "a symbol", "a function".
      return `a ${typeof value}`;
  }
}

/** A required or optional positive integer (siteId, quantity, variantId: API document, Limits). */
export function checkPositiveInteger(
  value: unknown,
  path: string,
  report: Report,
  required: boolean,
): void {
  if (value === undefined) {
    if (required) report(path, "is required: a positive integer");
    return;
  }
  if (!isPositiveSafeInteger(value)) report(path, positiveIntegerProblem(value));
}

/** A string of at most `max` characters; optional unless `required`. */
export function checkString(
  value: unknown,
  path: string,
  report: Report,
  options: { max: number; required?: boolean },
): void {
  if (value === undefined) {
    if (options.required) report(path, `is required: a string of up to ${options.max} characters`);
    return;
  }
  if (typeof value !== "string") {
    report(path, `must be a string, got ${describe(value)}`);
    return;
  }
  if (longerThan(value, options.max)) {
    report(path, `must be at most ${options.max} characters, got ${codePointCount(value)}`);
  }
}

/** partnerOrderId and partnerLineId: required, 1 to 100 printable ASCII characters. */
export function checkPrintableId(value: unknown, path: string, report: Report): void {
  if (value === undefined) {
    report(path, "is required: 1 to 100 printable ASCII characters");
    return;
  }
  if (typeof value !== "string") {
    report(path, `must be a string, got ${describe(value)}`);
    return;
  }
  if (value.length === 0) report(path, "must not be empty: 1 to 100 printable ASCII characters");
  if (value.length > 100) report(path, `must be at most 100 characters, got ${value.length}`);
  if (!PRINTABLE_ASCII.test(value)) {
    report(path, "must contain only printable ASCII characters (0x20 to 0x7E)");
  }
}

/** A productId: the documented prefix and digits, which also keeps it within 24 characters. */
export function checkProductIdValue(value: unknown, path: string, report: Report): void {
  if (value === undefined) {
    report(path, "is required: SLO_ or SLS_ followed by 1 to 18 digits");
    return;
  }
  if (typeof value !== "string") {
    report(path, `must be a string, got ${describe(value)}`);
    return;
  }
  if (!PRODUCT_ID_PATTERN.test(value)) {
    report(path, "must be SLO_ or SLS_ followed by 1 to 18 digits (at most 24 characters)");
  }
}
