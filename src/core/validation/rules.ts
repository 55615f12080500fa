import type { Violation } from "../errors";

/** Checkers never stop at the first violation. */
export type Report = (path: string, message: string) => void;

export function collectInto(violations: Violation[]): Report {
  return (path, message) => {
    violations.push({ path, message });
  };
}

export const PRODUCT_ID_PATTERN = /^(SLO|SLS)_[0-9]{1,18}$/;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Also from another realm; not a class instance, which JSON would send unlike what the caller sees. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = prototype === null || Object.getPrototypeOf(prototype) === null;
  return plain && !(Symbol.toStringTag in value) && !(Symbol.iterator in value);
}

export function isPositiveSafeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** Past 2^53 - 1 a number is already rounded and would name another site, variant or order. */
export function positiveIntegerProblem(value: unknown): string {
  if (Number.isInteger(value) && (value as number) > 0) {
    return `is above ${Number.MAX_SAFE_INTEGER} (2^53 - 1), past which a JavaScript number is not exact, so it cannot be sent unchanged; got ${value}`;
  }
  return `must be a positive integer, got ${describe(value)}`;
}

/** The value of `key` as `JSON.stringify` would send it: inherited values are never read. */
export function sent(object: Record<string, unknown>, key: string): unknown {
  return Object.prototype.propertyIsEnumerable.call(object, key) ? object[key] : undefined;
}

/** `Object.keys` also sees an own `__proto__` from JSON.parse. */
export function sentKeys(object: Record<string, unknown>): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}

export function childPath(parent: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** In code points, the most lenient reading of the API document's "chars". */
export function longerThan(text: string, max: number): boolean {
  let count = 0;
  for (const _ of text) {
    count++;
    if (count > max) return true;
  }
  return false;
}

export function codePointCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Value-free: addresses and job data are not echoed. */
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
      return `a ${typeof value}`;
  }
}

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
