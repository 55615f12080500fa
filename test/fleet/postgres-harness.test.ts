import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresAvailable, usePostgres } from "../support/postgres.js";

// The Postgres tests of the mirror rely on this harness: a real server, and a database per test
// that no other test can see and that is gone afterwards.
const available = postgresAvailable();

describe.runIf(available)("the PostgreSQL test harness", () => {
  const postgres = usePostgres();

  it("gives each test its own database and drops it afterwards", async () => {
    // The server's own databases: this test drops them itself, to see what a drop does.
    const first = await postgres.server.createDatabase();
    const second = await postgres.server.createDatabase();
    expect(first.name).not.toBe(second.name);

    const a = new pg.Client({ connectionString: first.url });
    await a.connect();
    await a.query("CREATE TABLE marker (id int)");
    await a.query("INSERT INTO marker VALUES (7)");
    expect((await a.query("SELECT id FROM marker")).rows).toEqual([{ id: 7 }]);
    await a.end();

    const b = new pg.Client({ connectionString: second.url });
    await b.connect();
    const seen = await b.query("SELECT to_regclass('marker') AS t");
    expect(seen.rows[0].t).toBeNull();
    await b.end();

    // Dropping closes connections still open to the database.
    const lingering = new pg.Client({ connectionString: first.url });
    lingering.on("error", () => undefined);
    await lingering.connect();
    await first.drop();
    await second.drop();
    await lingering.end().catch(() => undefined);
    const again = new pg.Client({ connectionString: first.url });
    await expect(again.connect()).rejects.toThrow(/does not exist/);
  });
});
