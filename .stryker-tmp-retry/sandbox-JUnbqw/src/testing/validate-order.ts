// @ts-nocheck
import type { OrderRequestInput } from "./model";
import { PRODUCT_ID } from "./params";

/**
 * The synchronous validation of POST /v1/orders (API document, POST /v1/orders, Behaviour 1, and
 * "Limits"). It runs before any submission record exists; the first violation found is reported,
 * with `detail` naming the field.
 */

export const MAX_BODY_BYTES = 256 * 1024;

export class OrderValidationError extends Error {}

const fail = (field: string, message: string): never => {
  throw new OrderValidationError(field ? `${field}: ${message}` : message);
};

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const TOP_KEYS = new Set(["siteId", "partnerOrderId", "shipTo", "lines"]);
const LINE_KEYS = new Set([
  "productId",
  "partnerLineId",
  "quantity",
  "variantId",
  "sku",
  "jobName",
  "artworkUrl",
  "templateVariables",
  "shipTo",
]);
/** ShipTo fields and their maximum lengths (API document, ShipTo). */
const SHIP_TO_LIMITS: Record<string, number> = {
  name: 200,
  company: 200,
  address1: 200,
  address2: 200,
  city: 200,
  state: 100,
  postalCode: 20,
  country: 2,
  phone: 40,
  email: 254,
};
const SHIP_TO_REQUIRED = ["name", "address1", "city", "state", "postalCode", "country"];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * siteId, quantity and variantId are "positive integers, no other ceiling" (API document, Limits):
 * one above 2^53 - 1 is valid here, and meets the grant and catalog rules like any other value.
 */
const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

function noUnknownKeys(value: Record<string, unknown>, allowed: Set<string>, at: string) {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) fail(at ? `${at}.${key}` : key, "unknown field");
  }
}

function optionalString(value: Record<string, unknown>, key: string, max: number, at: string) {
  const v = value[key];
  if (v === undefined) return;
  if (typeof v !== "string") fail(`${at}.${key}`, "must be a string");
  if ((v as string).length > max) fail(`${at}.${key}`, `must be at most ${max} characters`);
}

function idString(v: unknown, field: string) {
  if (typeof v !== "string") return fail(field, "is required and must be a string");
  if (v.length < 1 || v.length > 100) fail(field, "must be 1 to 100 characters");
  if (!PRINTABLE_ASCII.test(v)) fail(field, "must be printable ASCII");
}

function shipTo(value: unknown, at: string, lineLevel: boolean) {
  if (!isObject(value)) return fail(at, "must be an object");
  noUnknownKeys(value, new Set(Object.keys(SHIP_TO_LIMITS)), at);
  // The ship-notification email belongs to the order, never to a line (POST /v1/orders, Behaviour 1).
  if (lineLevel && value.email !== undefined)
    fail(`${at}.email`, "is accepted only on the order-level shipTo");
  for (const key of SHIP_TO_REQUIRED) {
    if (value[key] === undefined) fail(`${at}.${key}`, "is required");
  }
  for (const [key, max] of Object.entries(SHIP_TO_LIMITS)) optionalString(value, key, max, at);
  if ((value.country as string).length !== 2) fail(`${at}.country`, "must be exactly 2 characters");
}

function templateVariables(value: unknown, at: string) {
  if (!isObject(value)) return fail(at, "must be an object of strings");
  const entries = Object.entries(value);
  if (entries.length > 50) fail(at, "must have at most 50 entries");
  for (const [key, v] of entries) {
    if (RESERVED_KEYS.has(key)) fail(`${at}.${key}`, "is a reserved key");
    if (key.length > 100) fail(at, `key "${key.slice(0, 20)}..." must be at most 100 characters`);
    if (typeof v !== "string") fail(`${at}.${key}`, "must be a string");
    if ((v as string).length > 2000) fail(`${at}.${key}`, "must be at most 2000 characters");
  }
}

function line(value: unknown, i: number, seen: Set<string>) {
  const at = `lines[${i}]`;
  if (!isObject(value)) return fail(at, "must be an object");
  noUnknownKeys(value, LINE_KEYS, at);
  const { productId, partnerLineId, quantity, variantId } = value;
  if (typeof productId !== "string") fail(`${at}.productId`, "is required and must be a string");
  if ((productId as string).length > 24) fail(`${at}.productId`, "must be at most 24 characters");
  if (!PRODUCT_ID.test(productId as string))
    fail(`${at}.productId`, "must be SLO_ or SLS_ followed by 1 to 18 digits");
  idString(partnerLineId, `${at}.partnerLineId`);
  if (seen.has(partnerLineId as string))
    fail(`${at}.partnerLineId`, "duplicates another line's partnerLineId");
  seen.add(partnerLineId as string);
  if (!isPositiveInt(quantity))
    fail(`${at}.quantity`, "is required and must be a positive integer");
  // A null variantId is what a POD product lists; sending it back as received is allowed.
  if (variantId !== undefined && variantId !== null && !isPositiveInt(variantId)) {
    fail(`${at}.variantId`, "must be a positive integer");
  }
  optionalString(value, "sku", 100, at);
  optionalString(value, "jobName", 200, at);
  optionalString(value, "artworkUrl", 2000, at);
  if (value.templateVariables !== undefined)
    templateVariables(value.templateVariables, `${at}.templateVariables`);
  if (value.shipTo !== undefined) shipTo(value.shipTo, `${at}.shipTo`, true);
}

/** Parses and validates the raw body; throws {@link OrderValidationError} with the detail to send. */
export function validateOrderBody(bytes: Uint8Array): OrderRequestInput {
  if (bytes.byteLength > MAX_BODY_BYTES)
    fail("", `body is ${bytes.byteLength} bytes; the limit is 256 KB`);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return fail("", "body is not valid JSON");
  }
  if (!isObject(body)) return fail("", "body must be a JSON object");
  noUnknownKeys(body, TOP_KEYS, "");
  if (body.siteId === undefined) fail("siteId", "is required");
  if (!isPositiveInt(body.siteId)) fail("siteId", "must be a positive integer");
  idString(body.partnerOrderId, "partnerOrderId");
  if (!Array.isArray(body.lines)) return fail("lines", "is required and must be an array");
  if (body.lines.length < 1 || body.lines.length > 100) fail("lines", "must have 1 to 100 entries");
  const seen = new Set<string>();
  for (const [i, l] of body.lines.entries()) line(l, i, seen);
  // Exactly one of an order-level shipTo or a shipTo on every line (POST /v1/orders, shipTo).
  const lines = body.lines as Record<string, unknown>[];
  if (body.shipTo !== undefined) {
    const i = lines.findIndex((l) => l.shipTo !== undefined);
    if (i >= 0) fail(`lines[${i}].shipTo`, "not allowed together with an order-level shipTo");
    shipTo(body.shipTo, "shipTo", false);
  } else {
    const i = lines.findIndex((l) => l.shipTo === undefined);
    if (i >= 0)
      fail(
        i === 0 ? "shipTo" : `lines[${i}].shipTo`,
        "required: give an order-level shipTo or one on every line",
      );
  }
  return body as unknown as OrderRequestInput;
}

/**
 * Canonical JSON (sorted keys) so an identical body is recognised whatever its key order or spacing
 * (POST /v1/orders 6 speaks of the same body, not the same bytes); values, array order and null
 * against absent still differ.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
