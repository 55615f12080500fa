import { Decimal } from "../core/decimal";
import { type DecimalEncoding, decimalFields } from "../generated/money";

/**
 * Values between the client's models and the store. Money goes to the store as exact decimal text
 * (never a float) and comes back as `Decimal`; null stays null; every other value is the service's
 * as sent, unknown fields included. The result is what a JSON round trip would make of `value`.
 */
export function storable<T>(value: T): Record<string, unknown> {
  // Rows as the client decodes them (JSON's own values and Decimal) are copied in one walk; any
  // other value (a Date, a toJSON of its own, a key JSON.parse would treat apart) takes the round trip.
  const copied = copy(value);
  // Undefined on its own is no JSON at all: the round trip throws for it, as it always did.
  const done = copied !== EXOTIC && copied !== undefined;
  return (done ? copied : roundTrip(value)) as Record<string, unknown>;
}

/** What a JSON round trip makes of `value`, money as its exact decimal text. */
function roundTrip(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, json: unknown) {
      // Money from the raw value, not from what `Decimal#toJSON` made of it: that can carry an
      // exponent (`1e+21`). Anything else as its own `toJSON` made it (a `Date`, ISO text).
      const raw = this[key];
      return raw instanceof Decimal ? raw.toFixed() : json;
    }),
  );
}

/** Marks a value `copy` leaves to the round trip. */
const EXOTIC = Symbol("exotic");

/**
 * A copy of `value` as JSON would give it back, for JSON's own values and Decimal; EXOTIC for
 * anything else. Undefined is what JSON leaves out (in an object) or makes null (in an array).
 */
function copy(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON writes -0 as 0, and has no NaN or Infinity (null).
      if (value === 0) return 0;
      return Number.isFinite(value) ? value : null;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object": {
      if (value === null) return null;
      if (value instanceof Decimal) return value.toFixed();
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype || "toJSON" in value) return EXOTIC;
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const element = copy(value[i]);
          if (element === EXOTIC) return EXOTIC;
          out[i] = element === undefined ? null : element;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || "toJSON" in value) return EXOTIC;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        // Assigning `__proto__` would set the copy's prototype, where JSON.parse makes a field.
        if (key === "__proto__") return EXOTIC;
        const field = copy((value as Record<string, unknown>)[key]);
        if (field === EXOTIC) return EXOTIC;
        if (field !== undefined) out[key] = field;
      }
      return out;
    }
    default:
      // A bigint: JSON.stringify throws, as the round trip will.
      return EXOTIC;
  }
}

/**
 * The money fields of one stored row, each as its path's segments, read from the table the client
 * converts answers with: a money field the spec gains is revived here without a hand edit.
 * `prefix` is the part of the path above the row (`items[].` for a line of `listOrderItems`).
 */
function moneyPaths(operationId: string, prefix: string): string[][] {
  const table = decimalFields as Readonly<
    Record<string, readonly (readonly [string, DecimalEncoding])[]>
  >;
  // An operation with no money has no entry (shipments, today).
  // Stryker disable next-line ArrayDeclaration: equivalent, an element no entry has fails the prefix
  return (table[operationId] ?? [])
    .filter(([path]) => path.startsWith(prefix))
    .map(([path]) => path.slice(prefix.length).split("."));
}

const ORDER_MONEY = moneyPaths("getOrder", "");
const ITEM_MONEY = moneyPaths("listOrderItems", "items[].");
const SHIPMENT_MONEY = moneyPaths("listOrderShipments", "shipments[].");

/** A copy of `value` with the money at `path` made a `Decimal`; anything else is left as it is. */
function reviveAt(value: unknown, path: readonly string[]): unknown {
  const [segment, ...rest] = path;
  if (segment === undefined) return typeof value === "string" ? new Decimal(value) : value;
  if (typeof value !== "object" || value === null) return value;
  const each = segment.endsWith("[]");
  const key = each ? segment.slice(0, -2) : segment;
  if (!Object.hasOwn(value, key)) return value;
  const inner = (value as Record<string, unknown>)[key];
  const revived = !each
    ? reviveAt(inner, rest)
    : Array.isArray(inner)
      ? inner.map((element) => reviveAt(element, rest))
      : inner;
  return { ...value, [key]: revived };
}

const revive = <T>(row: Record<string, unknown>, paths: readonly string[][]): T =>
  paths.reduce<unknown>((value, path) => reviveAt(value, path), row) as T;

/** A stored order with its money (`totals`) as `Decimal`. */
export const reviveOrder = <T>(row: Record<string, unknown>): T => revive<T>(row, ORDER_MONEY);

/** A stored line with its money (`lineListTotal`, `lineTotal`) as `Decimal`. */
export const reviveItem = <T>(row: Record<string, unknown>): T => revive<T>(row, ITEM_MONEY);

/** A stored shipment with its money as `Decimal` (a shipment has none today). */
export const reviveShipment = <T>(row: Record<string, unknown>): T =>
  revive<T>(row, SHIPMENT_MONEY);
