/** Small statistics and formatting helpers for the benchmark report. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const min = (values: readonly number[]) => Math.min(...values);
export const max = (values: readonly number[]) => Math.max(...values);

/** `412 µs` / `1.23 ms` / `2.41 s`, from microseconds. */
export function time(us: number): string {
  if (!Number.isFinite(us)) return "n/a";
  if (us < 1_000) return `${us.toFixed(us < 10 ? 1 : 0)} µs`;
  if (us < 1_000_000) return `${(us / 1_000).toFixed(2)} ms`;
  return `${(us / 1_000_000).toFixed(2)} s`;
}

/** `median (min-max)` of a set of per-round figures. */
export function spread(values: readonly number[], format: (v: number) => string): string {
  return `${format(median(values))} (${format(min(values))}-${format(max(values))})`;
}

export const ratio = (v: number) => `${v.toFixed(2)}x`;

/** Contenders in a different order each round, so none always runs first (warm caches, GC debt). */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** The heading of the hand-written notes that close bench/results.md. */
export const NOTES_HEADING = "## Reading these figures";

/**
 * A new report followed by the hand-written notes of the previous results.md, if it had any: the
 * tables are measured again on each run, the notes are not, and a run must not erase them.
 */
export function withNotes(report: string, previous: string): string {
  const at = previous.indexOf(`\n${NOTES_HEADING}\n`);
  if (at === -1) return report;
  return `${report.trimEnd()}\n\n${previous.slice(at + 1)}`;
}
