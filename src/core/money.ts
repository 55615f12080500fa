import DecimalJs from "decimal.js";
import { type DecimalEncoding, decimalFields } from "../generated/money";
import { PartnerOrdersError } from "./errors";
import { parseJsonKeepingNumbers } from "./json";

/**
 * The `Decimal` every money field is given as: decimal.js with 40 significant digits for arithmetic,
 * so sums of 10-fractional-digit totals are not rounded at decimal.js's default of 20. Values are
 * always constructed exactly from the text the server sent.
 */
export const Decimal = DecimalJs.clone({ precision: 40 });
export type Decimal = DecimalJs;

interface CompiledFields {
  /** Each decimal field's path, split into segments. */
  paths: string[][];
  /** Paths of decimals sent as JSON numbers: read as text so no digit is lost. */
  numberPaths: ReadonlySet<string>;
}

const compiled = new Map<string, CompiledFields | null>();

function fieldsOf(operationId: string): CompiledFields | null {
  let fields = compiled.get(operationId);
  if (fields === undefined) {
    const entries = decimalFields[operationId] as
      | readonly (readonly [string, DecimalEncoding])[]
      | undefined;
    fields = entries
      ? {
          paths: entries.map(([path]) => path.split(".")),
          numberPaths: new Set(entries.filter(([, enc]) => enc === "number").map(([path]) => path)),
        }
      : null;
    compiled.set(operationId, fields);
  }
  return fields;
}

/**
 * Turns a success body into data: JSON parsed, every decimal field of the operation's response (as
 * the spec marks it) made a `Decimal`, nulls left null. The one place money is converted (STYLE.md:
 * "Money is converted once, at the boundary").
 */
export function decodeBody(operationId: string, text: string): unknown {
  const fields = fieldsOf(operationId);
  let data: unknown;
  try {
    data = fields?.numberPaths.size
      ? parseJsonKeepingNumbers(text, fields.numberPaths)
      : JSON.parse(text);
  } catch {
    throw new PartnerOrdersError(`The ${operationId} response body is not valid JSON.`);
  }
  if (fields) for (const path of fields.paths) convertAt(data, path, 0, operationId);
  return data;
}

function convertAt(node: unknown, path: string[], index: number, operationId: string): void {
  if (typeof node !== "object" || node === null) return;
  const segment = path[index] as string;
  const eachElement = segment.endsWith("[]");
  const key = eachElement ? segment.slice(0, -2) : segment;
  const record = node as Record<string, unknown>;
  if (!Object.hasOwn(record, key)) return;
  const child = record[key];
  if (eachElement) {
    if (Array.isArray(child))
      for (const item of child) convertAt(item, path, index + 1, operationId);
    return;
  }
  if (index < path.length - 1) {
    convertAt(child, path, index + 1, operationId);
    return;
  }
  if (child === null || child === undefined) return; // Null is not zero (API document, OrderTotals).
  record[key] = toDecimal(child, path.join("."), operationId);
}

function toDecimal(value: unknown, path: string, operationId: string): Decimal {
  if ((typeof value === "string" || typeof value === "number") && value !== "") {
    try {
      return new Decimal(value);
    } catch {
      // fall through to the typed error
    }
  }
  throw new PartnerOrdersError(
    `The ${operationId} response has a value at ${path} that is not a decimal amount.`,
  );
}
