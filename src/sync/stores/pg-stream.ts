import type { MirrorStore } from "../types";
import type { Connections } from "./pg-connection";
import { STREAM } from "./schema";

/** The tables the stream's statements use, schema-qualified. */
type Tables = Record<"changes" | "checkpoints" | "consumers", string>;

/**
 * Version 3 of the change stream, from version 2: whether each change belongs to the snapshot. A
 * store whose first sweep had ended has its snapshot complete (changes written before the upgrade
 * say false); one whose first sweep is still under way marks what that sweep wrote so far. The
 * default lets a process of version 2 still running during a rolling upgrade go on writing changes.
 */
export function changeStreamV3(t: Tables): string {
  return `
ALTER TABLE ${t.changes} ADD COLUMN snapshot BOOLEAN NOT NULL DEFAULT false;
INSERT INTO ${t.checkpoints} (name, value)
  SELECT '${STREAM.snapshotComplete}', (SELECT COALESCE(MAX(id), 0) FROM ${t.changes})::text
  WHERE EXISTS (SELECT 1 FROM ${t.checkpoints} WHERE name = 'sweep:last');
UPDATE ${t.changes} SET snapshot = true WHERE cause = 'sweep'
  AND NOT EXISTS (SELECT 1 FROM ${t.checkpoints} WHERE name = '${STREAM.snapshotComplete}');`;
}

/** The stream's methods of the PostgreSQL store: consumers' first positions and retention. */
export function pgStream(
  connections: Connections,
  t: Tables,
): Pick<MirrorStore, "initPosition" | "pruneChanges" | "prunedThrough"> {
  const q = (text: string, values?: unknown[]) => connections.query(text, values);
  return {
    async initPosition(consumer, id) {
      // One statement: of several processes starting the same consumer, the first one's stands.
      const { rows } = await q(
        `WITH made AS (
           INSERT INTO ${t.consumers} (name, position) VALUES ($1, $2)
           ON CONFLICT (name) DO NOTHING RETURNING position)
         SELECT position FROM made
         UNION ALL SELECT position FROM ${t.consumers} WHERE name = $1
         LIMIT 1`,
        [consumer, id],
      );
      return Number((rows[0] as { position: string }).position);
    },
    async pruneChanges(before) {
      return connections.transaction(async (client) => {
        // Kept: the first change observed at or after `before` and every later id, so what is
        // deleted is always a run of the oldest ids, whatever the writers' clocks said. A change
        // being written now has a larger id than every committed one, so it is never deleted.
        const { rows } = await client.query(
          `WITH gone AS (
             DELETE FROM ${t.changes} WHERE id < COALESCE(
               (SELECT id FROM ${t.changes} WHERE observed_at >= $1 ORDER BY id LIMIT 1),
               (SELECT COALESCE(MAX(id), 0) + 1 FROM ${t.changes}))
             RETURNING id)
           SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS top FROM gone`,
          [before],
        );
        const gone = rows[0] as { n: string; top: string };
        const marked = await client.query(
          `INSERT INTO ${t.checkpoints} AS c (name, value) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE
             SET value = GREATEST(COALESCE(c.value, '0')::bigint, excluded.value::bigint)::text
           RETURNING value`,
          [STREAM.prunedThrough, gone.top],
        );
        return {
          pruned: Number(gone.n),
          prunedThrough: Number((marked.rows[0] as { value: string }).value),
        };
      });
    },
    async prunedThrough() {
      const { rows } = await q(`SELECT value FROM ${t.checkpoints} WHERE name = $1`, [
        STREAM.prunedThrough,
      ]);
      return Number((rows[0] as { value: string | null } | undefined)?.value ?? 0);
    },
  };
}
