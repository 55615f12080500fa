import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { Connections, type PgPoolLike } from "../../../src/sync/stores/pg-connection";
import { changeStreamV3, pgStream } from "../../../src/sync/stores/pg-stream";

/**
 * The change stream's statements of the PostgreSQL store, on a scripted connection: what each
 * method sends and how it reads the answer (bigint columns come back as text). The statements
 * themselves run against a real server in test/sync/stores/contract.test.ts.
 */
const T = {
  changes: '"s".po_changes',
  checkpoints: '"s".po_checkpoints',
  consumers: '"s".po_consumers',
};
const flat = (sql: string) => sql.replace(/\s+/g, " ").trim();

function scripted(answers: { rows: unknown[] }[]) {
  const log: [string, unknown[] | undefined][] = [];
  class Client extends EventEmitter {
    async query(text: string, values?: unknown[]) {
      log.push([flat(text), values]);
      const answer = ["BEGIN", "COMMIT", "ROLLBACK"].includes(text)
        ? { rows: [] }
        : answers.shift();
      return { rows: answer?.rows ?? [], rowCount: answer?.rows.length ?? 0 };
    }
    release() {}
  }
  const pool = {
    connect(callback: (error: undefined, client: unknown) => void) {
      callback(undefined, new Client());
    },
  } as unknown as PgPoolLike;
  return { stream: pgStream(new Connections(() => pool, "PostgreSQL test"), T), log };
}

describe("the PostgreSQL change stream", () => {
  it("initPosition inserts the consumer unless it exists and answers the position that stands", async () => {
    const s = scripted([{ rows: [{ position: "41" }] }]);
    expect(await s.stream.initPosition("billing", 7)).toBe(41);
    expect(s.log).toEqual([
      [
        'WITH made AS ( INSERT INTO "s".po_consumers (name, position) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING position) SELECT position FROM made UNION ALL SELECT position FROM "s".po_consumers WHERE name = $1 LIMIT 1',
        ["billing", 7],
      ],
    ]);
  });

  it("pruneChanges deletes the oldest ids in a transaction and records the highest deleted, never lower", async () => {
    const s = scripted([{ rows: [{ n: "3", top: "9" }] }, { rows: [{ value: "12" }] }]);
    expect(await s.stream.pruneChanges("2026-01-01T00:00:00.000Z")).toEqual({
      pruned: 3,
      prunedThrough: 12,
    });
    expect(s.log.map(([sql]) => sql)).toEqual([
      "BEGIN",
      'WITH gone AS ( DELETE FROM "s".po_changes WHERE id < COALESCE( (SELECT id FROM "s".po_changes WHERE observed_at >= $1 ORDER BY id LIMIT 1), (SELECT COALESCE(MAX(id), 0) + 1 FROM "s".po_changes)) RETURNING id) SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS top FROM gone',
      "INSERT INTO \"s\".po_checkpoints AS c (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = GREATEST(COALESCE(c.value, '0')::bigint, excluded.value::bigint)::text RETURNING value",
      "COMMIT",
    ]);
    expect(s.log[1]?.[1]).toEqual(["2026-01-01T00:00:00.000Z"]);
    expect(s.log[2]?.[1]).toEqual(["stream:pruned-through", "9"]);
  });

  it("prunedThrough reads the checkpoint: 0 when never pruned, or when its value is null", async () => {
    const s = scripted([{ rows: [{ value: "17" }] }, { rows: [] }, { rows: [{ value: null }] }]);
    expect(await s.stream.prunedThrough()).toBe(17);
    expect(await s.stream.prunedThrough()).toBe(0);
    expect(await s.stream.prunedThrough()).toBe(0);
    expect(s.log[0]).toEqual([
      'SELECT value FROM "s".po_checkpoints WHERE name = $1',
      ["stream:pruned-through"],
    ]);
  });

  it("the version 3 migration adds the snapshot column, completes the snapshot of a store that swept, and marks a sweep under way", () => {
    expect(flat(changeStreamV3(T))).toBe(
      [
        'ALTER TABLE "s".po_changes ADD COLUMN snapshot BOOLEAN NOT NULL DEFAULT false;',
        'INSERT INTO "s".po_checkpoints (name, value) SELECT \'stream:snapshot-complete\', (SELECT COALESCE(MAX(id), 0) FROM "s".po_changes)::text WHERE EXISTS (SELECT 1 FROM "s".po_checkpoints WHERE name = \'sweep:last\');',
        "UPDATE \"s\".po_changes SET snapshot = true WHERE cause = 'sweep' AND NOT EXISTS (SELECT 1 FROM \"s\".po_checkpoints WHERE name = 'stream:snapshot-complete');",
      ].join(" "),
    );
  });
});
