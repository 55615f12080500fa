// The named export, not the default one: under `moduleResolution: nodenext` a partner's TypeScript
// reads decimal.d.ts as CommonJS, where the default import is the module object, not the class
// (`new Decimal()` would be TS2351 "not constructable" in our published declarations).
import { Decimal as DecimalJs } from "decimal.js";
import { type DecimalEncoding, decimalFields } from "../generated/money";
import { fromDecimalText } from "./decimal-text";
import { PartnerOrdersError } from "./errors";
import { parseJsonKeepingNumbers } from "./json";

/**
 * The `Decimal` every money field is given as: decimal.js's own constructor, so values compare and
 * combine with any `Decimal` a partner builds from decimal.js. Values are always constructed exactly
 * from the text the server sent; arithmetic precision is decimal.js's (20 significant digits unless
 * configured with `Decimal.set`).
 */
export const Decimal = DecimalJs;
export type Decimal = DecimalJs;

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
 * the spec marks it) made a `Decimal`, nulls left null. The one place money is converted: once, at
 * the boundary, never field by field in the resources.
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
  if (fields) convert(data, fields.tree, operationId, fields.numberPaths);
  return data;
}

function convert(
  holder: unknown,
  nodes: readonly FieldNode[],
  operationId: string,
  numberPaths: ReadonlySet<string>,
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
      if (Array.isArray(value))
        for (const item of value) convert(item, node.children, operationId, numberPaths);
    } else if (node.leaf) {
      record[node.key] = toDecimal(value, node.path, operationId, numberPaths.has(node.path));
    } else {
      convert(value, node.children, operationId, numberPaths);
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
  operationId: string,
  numberEncoded: boolean,
): Decimal {
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
  throw new PartnerOrdersError(
    `The ${operationId} response has a value at ${path} that is not a decimal amount.`,
  );
}
