import { describe, expect, it } from "vitest";
import {
  FATAL_MIRROR_CODES,
  MirrorError,
  SchemaVersionError,
  StoreAccountError,
  StoreLockedError,
  StoreUnavailableError,
  SweepHeldError,
} from "../../../src/sync/errors";

describe("MirrorError", () => {
  it("appends the hint to the message and keeps code, hint and cause", () => {
    const cause = new Error("underneath");
    const error = new MirrorError("some_code", "It broke.", { hint: "Fix it.", cause });
    expect(error.name).toBe("MirrorError");
    expect(error.code).toBe("some_code");
    expect(error.hint).toBe("Fix it.");
    expect(error.message).toBe("It broke. Fix it.");
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
  });

  it("without a hint, the message is the message alone", () => {
    const error = new MirrorError("some_code", "It broke.");
    expect(error.message).toBe("It broke.");
    expect(error.hint).toBeUndefined();
    expect(error.cause).toBeUndefined();
  });
});

describe("FATAL_MIRROR_CODES", () => {
  it("holds exactly the codes no retry can fix", () => {
    expect([...FATAL_MIRROR_CODES].sort()).toEqual([
      "mirror_closed",
      "schema_mismatch",
      "schema_too_new",
      "store_account_mismatch",
      "store_locked",
      "store_open_failed",
    ]);
  });
});

describe("the mirror's errors", () => {
  it("StoreLockedError names the file, the process and the host", () => {
    const error = new StoreLockedError("/data/m.db", 4242, "box-1");
    expect(error.name).toBe("StoreLockedError");
    expect(error.code).toBe("store_locked");
    expect(error.path).toBe("/data/m.db");
    expect(error.holderPid).toBe(4242);
    expect(error.holderHost).toBe("box-1");
    expect(error.hint).toBe(
      "SQLite is one process: stop that process, or use postgresStore for many. changes(), get() and orders() from other processes still work.",
    );
    expect(error.message).toBe(
      "/data/m.db is in use by process 4242 on box-1, which runs the mirror on it. SQLite is one process: stop that process, or use postgresStore for many. changes(), get() and orders() from other processes still work.",
    );
    expect(error).toBeInstanceOf(MirrorError);
  });

  it("SchemaVersionError says the version found and the newest known", () => {
    const error = new SchemaVersionError(7, 3, "The file /x.db");
    expect(error.name).toBe("SchemaVersionError");
    expect(error.code).toBe("schema_too_new");
    expect(error.found).toBe(7);
    expect(error.supported).toBe(3);
    expect(error.hint).toBe("Upgrade partner-orders, or use another database.");
    expect(error.message).toBe(
      "The file /x.db has mirror schema version 7; this version of partner-orders knows versions up to 3. Upgrade partner-orders, or use another database.",
    );
  });

  it("StoreAccountError names both accounts", () => {
    const stored = { partnerId: "p1", baseUrl: "https://a.example" };
    const given = { partnerId: "p2", baseUrl: "https://b.example" };
    const error = new StoreAccountError(stored, given);
    expect(error.name).toBe("StoreAccountError");
    expect(error.code).toBe("store_account_mismatch");
    expect(error.stored).toBe(stored);
    expect(error.given).toBe(given);
    expect(error.hint).toBe(
      "Use one store per account: another SQLite file, or postgresStore(url, { schema }).",
    );
    expect(error.message).toBe(
      "This store mirrors partner p1 at https://a.example, not partner p2 at https://b.example. Use one store per account: another SQLite file, or postgresStore(url, { schema }).",
    );
  });

  it("SweepHeldError names the holder and, when known, since when", () => {
    const error = new SweepHeldError("host/12/abc", "2026-03-01T12:00:00.000Z");
    expect(error.name).toBe("SweepHeldError");
    expect(error.code).toBe("sweep_held");
    expect(error.holder).toBe("host/12/abc");
    expect(error.since).toBe("2026-03-01T12:00:00.000Z");
    expect(error.report).toBeUndefined();
    expect(error.hint).toBe(
      "Wait for it to finish, or stop it; a holder that died is taken over automatically.",
    );
    expect(error.message).toBe(
      "Another process holds the sweep (host/12/abc, since 2026-03-01T12:00:00.000Z); no pass was made. Wait for it to finish, or stop it; a holder that died is taken over automatically.",
    );
  });

  it("SweepHeldError without a start time says only the holder", () => {
    const error = new SweepHeldError("host/12/abc", null);
    expect(error.message).toBe(
      "Another process holds the sweep (host/12/abc); no pass was made. Wait for it to finish, or stop it; a holder that died is taken over automatically.",
    );
  });

  it("StoreUnavailableError names the store and the reason, and keeps the cause", () => {
    const cause = new Error("ECONNREFUSED");
    const error = new StoreUnavailableError("postgres://db:5432/m", "connection refused", {
      cause,
    });
    expect(error.name).toBe("StoreUnavailableError");
    expect(error.code).toBe("store_unavailable");
    expect(error.store).toBe("postgres://db:5432/m");
    expect(error.cause).toBe(cause);
    expect(error.hint).toBe(
      "Check that the database is up and reachable; the mirror tries again later.",
    );
    expect(error.message).toBe(
      "The mirror's store (postgres://db:5432/m) is unavailable: connection refused. Check that the database is up and reachable; the mirror tries again later.",
    );
  });

  it("StoreUnavailableError without options has no cause", () => {
    const error = new StoreUnavailableError("s", "r");
    expect(error.cause).toBeUndefined();
  });
});
