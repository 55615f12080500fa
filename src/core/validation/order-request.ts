import { utf8Length } from "../../internal/bytes";
import type { Violation } from "../errors";
import {
  checkPositiveInteger,
  checkPrintableId,
  checkProductIdValue,
  checkString,
  childPath,
  collectInto,
  describe,
  isPlainObject,
  longerThan,
  type Report,
  sent,
  sentKeys,
} from "./rules";

// "256 KB" read as KiB: the client refuses only what the service refuses under either reading.
export const MAX_BODY_BYTES = 262_144;

export const MAX_LINES = 100;

export const MAX_TEMPLATE_VARIABLES = 50;

// The service rejects unknown keys, so these lists need a release for each field added within v1.
const ORDER_FIELDS: ReadonlySet<string> = new Set(["siteId", "partnerOrderId", "shipTo", "lines"]);
const LINE_FIELDS: ReadonlySet<string> = new Set([
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

const SHIP_TO_MAX: Readonly<Record<string, number>> = {
  name: 200,
  company: 200,
  address1: 200,
  address2: 200,
  city: 200,
  state: 100,
  postalCode: 20,
  phone: 40,
  email: 254,
};
const SHIP_TO_FIELDS: ReadonlySet<string> = new Set([...Object.keys(SHIP_TO_MAX), "country"]);
// "Present in the minimal shape" (API document, ShipTo), besides `country`.
const SHIP_TO_REQUIRED: ReadonlySet<string> = new Set([
  "name",
  "address1",
  "city",
  "state",
  "postalCode",
]);

const FORBIDDEN_TEMPLATE_KEYS: ReadonlySet<string> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/** Every rule of POST /v1/orders that needs none of the service's data (catalog, STOCK or POD). */
export function validateOrderRequest(request: unknown): Violation[] {
  const violations: Violation[] = [];
  const report = collectInto(violations);
  try {
    checkOrder(request, report);
  } catch {
    // A throwing getter or proxy trap.
    report("", "could not be read: a property getter or proxy threw while it was inspected");
    return violations;
  }
  if (isPlainObject(request)) checkBodySize(request, report);
  return violations;
}

function checkOrder(request: unknown, report: Report): void {
  if (!isPlainObject(request)) {
    report("", `must be a plain object, got ${describe(request)}`);
    return;
  }
  checkKeys(request, ORDER_FIELDS, "", "an order request", report);
  checkPositiveInteger(sent(request, "siteId"), "siteId", report, true);
  checkPrintableId(sent(request, "partnerOrderId"), "partnerOrderId", report);

  const shipTo = sent(request, "shipTo");
  if (shipTo !== undefined) checkShipTo(shipTo, "shipTo", false, report);

  const lines = sent(request, "lines");
  if (lines === undefined) {
    report("lines", `is required: an array of 1 to ${MAX_LINES} lines`);
    return;
  }
  if (!Array.isArray(lines)) {
    report("lines", `must be an array, got ${describe(lines)}`);
    return;
  }
  if (lines.length < 1 || lines.length > MAX_LINES) {
    report("lines", `must have 1 to ${MAX_LINES} entries, got ${lines.length}`);
  }
  // Each entry is 2 bytes of JSON or more: past this the body is too large anyway.
  if (lines.length > MAX_BODY_BYTES / 2) return;
  // Not forEach: a hole in a sparse array is sent as null and must be reported.
  for (let index = 0; index < lines.length; index++)
    checkLine(lines[index], `lines[${index}]`, report);
  checkUniqueLineIds(lines, report);
  checkShipToPlacement(shipTo !== undefined, lines, report);
}

function checkLine(line: unknown, path: string, report: Report): void {
  if (!isPlainObject(line)) {
    report(path, `must be an object, got ${describe(line)}`);
    return;
  }
  checkKeys(line, LINE_FIELDS, path, "an order line", report);
  checkProductIdValue(sent(line, "productId"), `${path}.productId`, report);
  checkPrintableId(sent(line, "partnerLineId"), `${path}.partnerLineId`, report);
  checkPositiveInteger(sent(line, "quantity"), `${path}.quantity`, report, true);
  // Null: a Product's variantId is sent back exactly as received, null (POD) included.
  const variantId = sent(line, "variantId");
  if (variantId !== null) checkPositiveInteger(variantId, `${path}.variantId`, report, false);
  checkString(sent(line, "sku"), `${path}.sku`, report, { max: 100 });
  checkString(sent(line, "jobName"), `${path}.jobName`, report, { max: 200 });
  checkString(sent(line, "artworkUrl"), `${path}.artworkUrl`, report, { max: 2000 });
  const variables = sent(line, "templateVariables");
  if (variables !== undefined) {
    checkTemplateVariables(variables, `${path}.templateVariables`, report);
  }
  const shipTo = sent(line, "shipTo");
  if (shipTo !== undefined) checkShipTo(shipTo, `${path}.shipTo`, true, report);
}

function checkKeys(
  object: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  what: string,
  report: Report,
): void {
  for (const key of sentKeys(object)) {
    if (known.has(key)) continue;
    // No request has a price field; `unitPrice` is the one most likely tried.
    const message =
      key === "unitPrice"
        ? "unitPrice is not accepted: prices come only from the catalog"
        : `is not a field of ${what}; the service rejects unknown keys`;
    report(childPath(path, key), message);
  }
}

function checkTemplateVariables(value: unknown, path: string, report: Report): void {
  if (!isPlainObject(value)) {
    report(path, `must be an object of string to string, got ${describe(value)}`);
    return;
  }
  const keys = sentKeys(value);
  if (keys.length > MAX_TEMPLATE_VARIABLES) {
    report(path, `must have at most ${MAX_TEMPLATE_VARIABLES} entries, got ${keys.length}`);
  }
  for (const key of keys) {
    const keyPath = childPath(path, key);
    if (FORBIDDEN_TEMPLATE_KEYS.has(key)) {
      report(keyPath, `key "${key}" is refused: __proto__, constructor and prototype are reserved`);
    }
    if (longerThan(key, 100)) report(keyPath, "key must be at most 100 characters");
    checkString(value[key], keyPath, report, { max: 2000 });
  }
}

function checkShipTo(value: unknown, path: string, onLine: boolean, report: Report): void {
  if (!isPlainObject(value)) {
    report(path, `must be an object, got ${describe(value)}`);
    return;
  }
  checkKeys(value, SHIP_TO_FIELDS, path, "a shipTo", report);
  for (const [field, max] of Object.entries(SHIP_TO_MAX)) {
    const fieldValue = sent(value, field);
    if (field === "email" && onLine && fieldValue !== undefined) {
      report(`${path}.email`, "is accepted only on the order-level shipTo, never on a line");
      continue;
    }
    checkString(fieldValue, `${path}.${field}`, report, {
      max,
      required: SHIP_TO_REQUIRED.has(field),
    });
  }
  checkCountry(sent(value, "country"), `${path}.country`, report);
}

// Either case: the API document does not say the service is case-sensitive.
function checkCountry(value: unknown, path: string, report: Report): void {
  if (value === undefined) {
    report(path, "is required: an ISO 3166-1 alpha-2 code such as US");
  } else if (typeof value !== "string") {
    report(path, `must be a string, got ${describe(value)}`);
  } else if (!/^[A-Za-z]{2}$/.test(value)) {
    report(path, "must be an ISO 3166-1 alpha-2 code: exactly 2 letters, such as US");
  }
}

function checkUniqueLineIds(lines: readonly unknown[], report: Report): void {
  const firstIndex = new Map<string, number>();
  lines.forEach((line, index) => {
    if (!isPlainObject(line)) return;
    const id = sent(line, "partnerLineId");
    if (typeof id !== "string") return;
    const first = firstIndex.get(id);
    if (first === undefined) firstIndex.set(id, index);
    else {
      report(
        `lines[${index}].partnerLineId`,
        `duplicates lines[${first}].partnerLineId: partnerLineId must be unique within the request`,
      );
    }
  });
}

function checkShipToPlacement(onOrder: boolean, lines: readonly unknown[], report: Report): void {
  const withShipTo: number[] = [];
  const withoutShipTo: number[] = [];
  lines.forEach((line, index) => {
    if (!isPlainObject(line)) return;
    (sent(line, "shipTo") === undefined ? withoutShipTo : withShipTo).push(index);
  });
  if (onOrder) {
    for (const index of withShipTo) {
      report(
        `lines[${index}].shipTo`,
        "must not be given with an order-level shipTo: use the order-level one or one on every line",
      );
    }
  } else if (withShipTo.length === 0) {
    report("shipTo", "is required: give an order-level shipTo or a shipTo on every line");
  } else {
    for (const index of withoutShipTo) {
      report(
        `lines[${index}].shipTo`,
        "is required: other lines carry a shipTo, so every line must (or use one order-level shipTo)",
      );
    }
  }
}

function checkBodySize(request: Record<string, unknown>, report: Report): void {
  const lines = sent(request, "lines");
  if (Array.isArray(lines) && lines.length > MAX_BODY_BYTES / 2) {
    report("", `body is larger than ${MAX_BODY_BYTES} bytes of UTF-8 JSON (256 KiB)`);
    return;
  }
  let json: string;
  try {
    json = JSON.stringify(request);
  } catch (error) {
    const cyclic = error instanceof TypeError && /circular|cyclic/i.test(error.message);
    report(
      "",
      cyclic
        ? "cannot be sent as JSON: it contains a cyclic reference"
        : "cannot be sent as JSON: it holds a value JSON cannot encode (a bigint, say)",
    );
    return;
  }
  const bytes = utf8Length(json);
  if (bytes > MAX_BODY_BYTES) {
    report(
      "",
      `body is ${bytes} bytes of UTF-8 JSON; at most ${MAX_BODY_BYTES} (256 KiB) are sent`,
    );
  }
}
