import { Decimal } from "../core/money";

/**
 * Values between the client's models and the store. Money goes to the store as exact decimal text
 * (never a float) and comes back as `Decimal`; null stays null; every other value is the service's
 * as sent, unknown fields included.
 */
export function storable<T>(value: T): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, json: unknown) {
      // Money from the raw value, not from what `Decimal#toJSON` made of it: that can carry an
      // exponent (`1e+21`). Anything else as its own `toJSON` made it (a `Date`, ISO text).
      const raw = this[key];
      return raw instanceof Decimal ? raw.toFixed() : json;
    }),
  );
}

const ORDER_MONEY = ["item", "shipping", "tax", "order"] as const;
const ITEM_MONEY = ["lineListTotal", "lineTotal"] as const;

const money = (text: unknown) => (typeof text === "string" ? new Decimal(text) : text);

export function reviveOrder<T>(row: Record<string, unknown>): T {
  const totals = row.totals as Record<string, unknown> | null | undefined;
  if (!totals || typeof totals !== "object") return row as T;
  const revived: Record<string, unknown> = { ...totals };
  for (const key of ORDER_MONEY) if (key in revived) revived[key] = money(revived[key]);
  return { ...row, totals: revived } as T;
}

export function reviveItem<T>(row: Record<string, unknown>): T {
  const revived: Record<string, unknown> = { ...row };
  for (const key of ITEM_MONEY) if (key in revived) revived[key] = money(revived[key]);
  return revived as T;
}
