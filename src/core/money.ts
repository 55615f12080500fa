import { type DecimalEncoding, decimalFields } from "../generated/money";
import { Decimal } from "./decimal";
import { fromDecimalText } from "./decimal-text";
import { ResponseDecodeError } from "./errors";
import { parseJsonKeepingNumbers } from "./json";

export { Decimal } from "./decimal";

/** One step of the decimal-field paths, with the steps below it: a tree walked once per body. */
interface FieldNode {
  key: string;
  /** `key[]`: the steps below apply to every element of the array. */
  each: boolean;
  /** The value at `key` is a decimal; `path` names it in messages. */
  leaf: boolean;
  path: string;
  children: FieldNode[];
}

interface CompiledFields {
  /** Names the operation in messages. */
  operationId: string;
  tree: FieldNode[];
  /** Paths of decimals sent as JSON numbers: read as text so no digit is lost. */
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

/** Paths sharing a prefix share its nodes, so `orders[]` is walked once for all four totals. */
function buildTree(paths: readonly string[]): FieldNode[] {
  const roots: FieldNode[] = [];
  for (const path of paths) {
    let level = roots;
    const segments = path.split(".");
    segments.forEach((segment, i) => {
      const each = segment.endsWith("[]");
      const key = each ? segment.slice(0, -2) : segment;
      // Sharing a node only saves walks: every path of one operation starts with the same step, so
      // a node never matched wrongly; one made twice converts the same fields.
      // Stryker disable next-line ArrowFunction,ConditionalExpression,EqualityOperator: sharing only
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

/**
 * Turns a success body into data: JSON parsed, every decimal field of the operation's response (as
 * the spec marks it) made a `Decimal`, nulls left null: the one place money is converted, once, at the
 * boundary, never field by field in resources. A value that is not a decimal amount refuses the whole
 * body with a {@link ResponseDecodeError} naming the field, and the row of a list it sits in.
 */
export function decodeBody(operationId: string, text: string): unknown {
  const fields = fieldsOf(operationId);
  const data = parseBody(operationId, text, fields);
  if (fields) convert(data, fields.tree, fields, undefined, -1);
  return data;
}

/** A list body read by {@link decodeRows}: the rows that decoded, and why each other one did not. */
export interface DecodedRows {
  /** The body, its lists holding only the rows whose decimal fields all decoded. */
  body: unknown;
  /** One error per row left out, in body order. */
  rejected: ResponseDecodeError[];
}

/**
 * {@link decodeBody} for a reader that must not lose a whole page to one bad row (the order mirror):
 * a row of a top-level list whose decimal field does not decode is left out of that list and
 * reported, instead of refusing the body. The rows kept are converted exactly as `decodeBody` does;
 * a body that is not JSON, or a bad value outside the rows, still throws.
 */
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
          // A separate walk per row, so a failure costs only its row; decodeBody keeps one walk.
          try {
            convert(row, node.children, fields, row, index);
            return true;
          } catch (error) {
            // convert throws nothing else: decimal.js's own errors become this one in toDecimal.
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

/**
 * Converts the fields of `nodes` under `holder` in place. `row` and `index` are the element of the
 * first list on the way down (an order of `orders[]`) and its position, so an error names the order;
 * `index` is -1 above any list.
 */
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
        // Only the first list's elements are rows: a line of a submission's order belongs to its row.
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

/**
 * Decimal text as the service writes it in a string (API document, OrderTotals): digits, an optional
 * `-` and an optional fraction. No exponent, no `+`, no hex, no `NaN` or `Infinity`: decimal.js reads
 * all of those, so they are refused before it sees them.
 */
const decimalString = /^-?\d+(?:\.\d+)?$/;
/**
 * A JSON number as written (RFC 8259), the form of number-encoded money (SubmittedOrder.totalPrice,
 * Quote.totalPrice). JSON allows an exponent there, and decimal.js reads one exactly, so it is kept.
 */
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
      // Plain decimal text, the common case, is checked and built by the fast path alone.
      result =
        (numberEncoded ? undefined : fromDecimalText(Decimal, value)) ??
        ((numberEncoded ? jsonNumber : decimalString).test(value) ? new Decimal(value) : undefined);
    } else if (typeof value === "number") {
      result = new Decimal(value);
    }
  } catch {
    // fall through to the typed error
  }
  // An exponent past decimal.js's range reads as Infinity, or as zero by underflow, and so does a
  // JSON number past a double's range (1e400) once parsed: not an amount.
  const underflow =
    // Stryker disable next-line StringLiteral: split always gives a first element
    result?.isZero() && typeof value === "string" && /[1-9]/.test(value.split(/[eE]/)[0] ?? "");
  if (result?.isFinite() && !underflow) return result;
  throw notAnAmount(fields.operationId, path, refusal(value, result, numberEncoded), row, index);
}

/** Why a value is no amount, in words that quote nothing of it (it may be anything, of any size). */
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
    // A number past 2^53 would arrive rounded and name another order: none is better than a wrong one.
    const candidate = (row as { orderNumber?: unknown }).orderNumber;
    orderNumber = Number.isSafeInteger(candidate) ? (candidate as number) : undefined;
    where = ` (${path.slice(0, path.indexOf("[]"))}[${index}]${orderNumber === undefined ? "" : `, order ${orderNumber}`})`;
  }
  return new ResponseDecodeError(
    `The ${operationId} response has a value at ${path} that is not a decimal amount${where}.`,
    { operationId, path, reason, index: index >= 0 ? index : undefined, orderNumber },
  );
}
