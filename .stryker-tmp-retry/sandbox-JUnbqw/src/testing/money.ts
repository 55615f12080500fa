/**
 * Money as the service encodes it (API document, OrderTotals): a decimal string with exactly 10
 * fractional digits. Amounts are kept as bigint counts of 1e-10 so no binary float ever rounds them.
 */
// @ts-nocheck

const SCALE = 10n ** 10n;

/** Cents to 1e-10 units. */
export const fromCents = (cents: number): bigint => BigInt(Math.round(cents)) * 10n ** 8n;

/** `12345600000000n` -> `"1234.5600000000"`. */
export function formatMoney(units: bigint): string {
  const sign = units < 0n ? "-" : "";
  const abs = units < 0n ? -units : units;
  return `${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(10, "0")}`;
}

/** Percent of an amount, truncated toward zero at the 10th fractional digit. */
export const percentOf = (units: bigint, percent: number): bigint =>
  (units * BigInt(Math.round(percent * 10_000))) / 1_000_000n;

/** Whole cents as the JSON number the submission and quote bodies carry (API document, Quote). */
export const centsToNumber = (cents: number): number => Math.round(cents) / 100;
