import { type DecimalEncoding, decimalFields } from "../generated/money";
import { Decimal } from "./decimal";
import { fromDecimalText } from "./decimal-text";
import { ResponseDecodeError } from "./errors";
import { parseJsonKeepingNumbers } from "./json";

export { Decimal } from "./decimal";

interface FieldNode {
  key: string;
  each: boolean;
  leaf: boolean;
  path: string;
  children: FieldNode[];
}

interface CompiledFields {
  operationId: string;
  tree: FieldNode[];
  numberPaths: ReadonlySet<string>;
}

const compiled = new Map<string, CompiledFields | null>();

function fieldsOf(operationId: string): CompiledFields | null {
  let fields = compiled.get(operationId);
  // Stryker disable next-line ConditionalExpression: compiling again gives the same fields (a cache)
  if (fields === undefined) {
    const entries = (
      decimalFields as Readonly<Record<string, readonly (readonly [string, DecimalEncoding])[]>>
    )[operationId];
    fields = entries
      ? {
          operationId,
          tree: buildTree(entries.map(([path]) => path)),
          numberPaths: new Set(entries.filter(([, enc]) => enc === "number").map(([path]) => path)),
        }
      : null;
    compiled.set(operationId, fields);
  }
  return fields;
}

function buildTree(paths: readonly string[]): FieldNode[] {
  const roots: FieldNode[] = [];
  for (const path of paths) {
    let level = roots;
    const segments = path.split(".");
    segments.forEach((segment, i) => {
      const each = segment.endsWith("[]");
      const key = each ? segment.slice(0, -2) : segment;
      // Stryker disable next-line ArrowFunction,ConditionalExpression,EqualityOperator: sharing only saves walks
      let node = level.find((n) => n.key === key && n.each === each);
      // Stryker disable next-line ConditionalExpression: as above, a node made twice converts the same
      if (!node) {
        node = { key, each, leaf: false, path, children: [] };
        level.push(node);
      }
      if (i === segments.length - 1) {
        node.leaf = true;
        node.path = path;
      }
      level = node.children;
    });
  }
  return roots;
}

/** The one place money is converted; a value that is no amount refuses the whole body. */
export function decodeBody(operationId: string, text: string): unknown {
  const fields = fieldsOf(operationId);
  const data = parseBody(operationId, text, fields);
  if (fields) convert(data, fields.tree, fields, undefined, -1);
  return data;
}

export interface DecodedRows {
  body: unknown;
  rejected: ResponseDecodeError[];
}

/** {@link decodeBody} that leaves a bad row out and reports it, so the mirror keeps the page. */
export function decodeRows(operationId: string, text: string): DecodedRows {
  const fields = fieldsOf(operationId);
  const body = parseBody(operationId, text, fields);
  const rejected: ResponseDecodeError[] = [];
  // Stryker disable next-line ConditionalExpression: equivalent, a primitive owns no list of rows
  if (fields && typeof body === "object" && body !== null) {
    const record = body as Record<string, unknown>;
    for (const node of fields.tree) {
      const rows = node.each && Object.hasOwn(record, node.key) ? record[node.key] : undefined;
      if (Array.isArray(rows)) {
        record[node.key] = rows.filter((row, index) => {
          try {
            convert(row, node.children, fields, row, index);
            return true;
          } catch (error) {
            rejected.push(error as ResponseDecodeError);
            return false;
          }
        });
      } else {
        convert(record, [node], fields, undefined, -1);
      }
    }
  }
  return { body, rejected };
}

function parseBody(operationId: string, text: string, fields: CompiledFields | null): unknown {
  try {
    return fields?.numberPaths.size
      ? parseJsonKeepingNumbers(text, fields.numberPaths)
      : JSON.parse(text);
  } catch {
    throw new ResponseDecodeError(`The ${operationId} response body is not valid JSON.`, {
      operationId,
      path: "",
      reason: "not valid JSON",
    });
  }
}

/** In place; `row` and `index` name the element of the first list down (-1 above any). */
function convert(
  holder: unknown,
  nodes: readonly FieldNode[],
  fields: CompiledFields,
  row: unknown,
  index: number,
): void {
  // Stryker disable next-line ConditionalExpression: equivalent, a primitive owns no member the spec names
  if (typeof holder !== "object" || holder === null) return;
  const record = holder as Record<string, unknown>;
  for (const node of nodes) {
    if (!Object.hasOwn(record, node.key)) continue;
    const value = record[node.key];
    // Null is not zero (API document, OrderTotals): it stays null, and so does anything under it.
    if (value === null) continue;
    if (node.each) {
      if (Array.isArray(value)) {
        const top = index < 0;
        let i = 0;
        for (const item of value) {
          convert(item, node.children, fields, top ? item : row, top ? i : index);
          i++;
        }
      }
    } else if (node.leaf) {
      record[node.key] = toDecimal(value, node.path, fields, row, index);
    } else {
      convert(value, node.children, fields, row, index);
    }
  }
}

// decimal.js also reads exponents, hex and `Infinity`: refused before it sees them.
const decimalString = /^-?\d+(?:\.\d+)?$/;
// JSON allows an exponent, which decimal.js reads exactly.
const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function toDecimal(
  value: unknown,
  path: string,
  fields: CompiledFields,
  row: unknown,
  index: number,
): Decimal {
  const numberEncoded = fields.numberPaths.has(path);
  let result: Decimal | undefined;
  try {
    if (typeof value === "string") {
      result =
        (numberEncoded ? undefined : fromDecimalText(Decimal, value)) ??
        ((numberEncoded ? jsonNumber : decimalString).test(value) ? new Decimal(value) : undefined);
    } else if (typeof value === "number") {
      result = new Decimal(value);
    }
  } catch {
    // decimal.js's own errors become the typed error below.
  }
  // An exponent out of range reads as Infinity or, by underflow, as zero: not an amount.
  const underflow =
    // Stryker disable next-line StringLiteral: split always gives a first element
    result?.isZero() && typeof value === "string" && /[1-9]/.test(value.split(/[eE]/)[0] ?? "");
  if (result?.isFinite() && !underflow) return result;
  throw notAnAmount(fields.operationId, path, refusal(value, result, numberEncoded), row, index);
}

/** Quotes nothing of the value: it may be anything, of any size. */
function refusal(value: unknown, read: Decimal | undefined, numberEncoded: boolean): string {
  if (read) return "an amount out of range";
  if (typeof value === "string")
    return numberEncoded ? "text that is not a number" : "text that is not a plain decimal";
  if (Array.isArray(value)) return "an array where an amount is expected";
  return typeof value === "object"
    ? "an object where an amount is expected"
    : "a boolean where an amount is expected";
}

function notAnAmount(
  operationId: string,
  path: string,
  reason: string,
  row: unknown,
  index: number,
): ResponseDecodeError {
  let where = "";
  let orderNumber: number | undefined;
  if (index >= 0) {
    // A number past 2^53 arrives rounded: no order is better than a wrong one.
    const candidate = (row as { orderNumber?: unknown }).orderNumber;
    orderNumber = Number.isSafeInteger(candidate) ? (candidate as number) : undefined;
    where = ` (${path.slice(0, path.indexOf("[]"))}[${index}]${orderNumber === undefined ? "" : `, order ${orderNumber}`})`;
  }
  return new ResponseDecodeError(
    `The ${operationId} response has a value at ${path} that is not a decimal amount${where}.`,
    { operationId, path, reason, index: index >= 0 ? index : undefined, orderNumber },
  );
}
