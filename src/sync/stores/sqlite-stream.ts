import type { MirrorStore } from "../types";
import { STREAM } from "./schema";

/** What the stream's statements need of the SQLite store: cached statements and a write. */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}
type Sql = (source: string) => Statement;
type Write = <R>(fn: () => R) => R;

/**
 * Version 3 of the change stream, from version 2: whether each change belongs to the snapshot. A
 * store whose first sweep had ended has its snapshot complete (changes written before the upgrade
 * say false); one whose first sweep is still under way marks what that sweep wrote so far.
 */
export function changeStreamV3(): string {
  return `
ALTER TABLE po_changes ADD COLUMN snapshot INTEGER NOT NULL DEFAULT 0;
INSERT INTO po_checkpoints (name, value)
  SELECT '${STREAM.snapshotComplete}', CAST((SELECT COALESCE(MAX(id), 0) FROM po_changes) AS TEXT)
  WHERE EXISTS (SELECT 1 FROM po_checkpoints WHERE name = 'sweep:last');
UPDATE po_changes SET snapshot = 1 WHERE cause = 'sweep'
  AND NOT EXISTS (SELECT 1 FROM po_checkpoints WHERE name = '${STREAM.snapshotComplete}');`;
}

/** Whether the first complete sweep is still to end; read in the transaction that writes changes. */
export function backfilling(sql: Sql): boolean {
  return (
    sql("SELECT 1 FROM po_checkpoints WHERE name = ?").get(STREAM.snapshotComplete) === undefined
  );
}

/** The stream's methods of the SQLite store: consumers' first positions and retention. */
export function sqliteStream(
  sql: Sql,
  write: Write,
): Pick<MirrorStore, "initPosition" | "pruneChanges" | "prunedThrough"> {
  const prunedThrough = () =>
    Number(
      (
        sql("SELECT value FROM po_checkpoints WHERE name = ?").get(STREAM.prunedThrough) as
          | { value: string | null }
          | undefined
      )?.value ?? 0,
    );
  return {
    async initPosition(consumer, id) {
      return write(() => {
        sql("INSERT INTO po_consumers (name, position) VALUES (?, ?) ON CONFLICT DO NOTHING").run(
          consumer,
          id,
        );
        const row = sql("SELECT position FROM po_consumers WHERE name = ?").get(consumer);
        return (row as { position: number }).position;
      });
    },
    async pruneChanges(before) {
      return write(() => {
        // Kept: the first change observed at or after `before` and every later id, so what is
        // deleted is always a run of the oldest ids, whatever the writers' clocks said.
        const { bound } = sql(
          `SELECT COALESCE(
             (SELECT id FROM po_changes WHERE observed_at >= ? ORDER BY id LIMIT 1),
             (SELECT COALESCE(MAX(id), 0) + 1 FROM po_changes)) AS bound`,
        ).get(before) as { bound: number };
        const gone = sql("SELECT COUNT(*) AS n, MAX(id) AS top FROM po_changes WHERE id < ?").get(
          bound,
        ) as { n: number; top: number | null };
        sql("DELETE FROM po_changes WHERE id < ?").run(bound);
        const through = Math.max(prunedThrough(), gone.top ?? 0);
        sql(
          "INSERT INTO po_checkpoints (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        ).run(STREAM.prunedThrough, String(through));
        return { pruned: gone.n, prunedThrough: through };
      });
    },
    async prunedThrough() {
      return prunedThrough();
    },
  };
}
