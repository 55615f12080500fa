import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { MirrorError } from "../../../src/sync/errors";
import {
  checkColumns,
  EXPECTED_COLUMNS,
  MIRROR_SCHEMA_VERSION,
  parseAccount,
  sameAccount,
  validAccount,
} from "../../../src/sync/stores/schema";

const HINT =
  "The mirror's tables were changed outside partner-orders: restore them from a backup, or give the mirror a new store.";

describe("the schema", () => {
  it("is at version 3", () => {
    expect(MIRROR_SCHEMA_VERSION).toBe(3);
  });

  it("expects these tables and columns", () => {
    expect(EXPECTED_COLUMNS).toEqual({
      po_orders: [
        "order_number",
        "site_id",
        "data",
        "items",
        "shipments",
        "closed",
        "unresolvable",
        "next_poll_at",
        "seen_in_sweep",
        "status",
        "updated_on",
        "total",
        "partner_order_id",
      ],
      po_external_ids: ["external_id", "order_number"],
      po_changes: [
        "id",
        "type",
        "order_number",
        "site_id",
        "observed_at",
        "cause",
        "payload",
        "snapshot",
      ],
      po_checkpoints: ["name", "value"],
      po_consumers: ["name", "position"],
      po_leases: ["name", "holder", "since", "expires_at"],
      po_meta: ["name", "value"],
    });
  });
});

describe("checkColumns", () => {
  const expected = { t1: ["a", "b"], t2: ["c"] };

  it("passes when every table has every column (extra columns allowed)", async () => {
    const asked: string[] = [];
    await expect(
      checkColumns("db", expected, (table) => {
        asked.push(table);
        return table === "t1" ? ["a", "b", "extra"] : ["c"];
      }),
    ).resolves.toBeUndefined();
    expect(asked).toEqual(["t1", "t2"]);
  });

  it("names the table and the first missing column", async () => {
    const error = await checkColumns("The file x.db", expected, async (table) =>
      table === "t1" ? ["a"] : ["c"],
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect((error as MirrorError).code).toBe("schema_mismatch");
    expect((error as MirrorError).hint).toBe(HINT);
    expect((error as MirrorError).message).toBe(
      `The file x.db: the table t1 has no column b, which the mirror needs. ${HINT}`,
    );
  });

  it("names a missing table", async () => {
    const error = await checkColumns("db", expected, (table) => (table === "t1" ? ["a", "b"] : []))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect((error as MirrorError).message).toBe(
      `db has no table t2, which the mirror needs. ${HINT}`,
    );
  });
});

describe("accounts", () => {
  it("parseAccount reads the stored row, and null when there is none", () => {
    expect(parseAccount('{"partnerId":"p1","baseUrl":"https://a.example","extra":1}')).toEqual({
      partnerId: "p1",
      baseUrl: "https://a.example",
    });
    expect(parseAccount(null)).toBeNull();
    expect(parseAccount(undefined)).toBeNull();
    expect(parseAccount("")).toBeNull();
  });

  it("sameAccount ignores trailing slashes only", () => {
    const a = { partnerId: "p1", baseUrl: "https://a.example" };
    expect(sameAccount(a, { partnerId: "p1", baseUrl: "https://a.example//" })).toBe(true);
    expect(sameAccount({ partnerId: "p1", baseUrl: "https://a.example/" }, a)).toBe(true);
    expect(sameAccount(a, { partnerId: "p2", baseUrl: "https://a.example" })).toBe(false);
    expect(sameAccount(a, { partnerId: "p1", baseUrl: "https://b.example" })).toBe(false);
    expect(
      sameAccount(
        { partnerId: "p1", baseUrl: "https://a.example/x/" },
        { partnerId: "p1", baseUrl: "https://a.example/x" },
      ),
    ).toBe(true);
    // Only trailing slashes: one inside the URL still counts.
    expect(
      sameAccount(
        { partnerId: "p1", baseUrl: "https://a.example/x" },
        { partnerId: "p1", baseUrl: "https://a.example/" },
      ),
    ).toBe(false);
    expect(
      sameAccount(
        { partnerId: "p1", baseUrl: "/https://a.example" },
        { partnerId: "p1", baseUrl: "https://a.example" },
      ),
    ).toBe(false);
  });

  it("validAccount keeps partnerId and baseUrl only", () => {
    expect(
      validAccount({ partnerId: "p1", baseUrl: "https://a.example", extra: 1 } as never),
    ).toEqual({ partnerId: "p1", baseUrl: "https://a.example" });
  });

  it.each([
    ["no account", undefined],
    ["a partnerId that is not text", { partnerId: 5, baseUrl: "https://a.example" }],
    ["an empty partnerId", { partnerId: "", baseUrl: "https://a.example" }],
    ["a baseUrl that is not text", { partnerId: "p1", baseUrl: 5 }],
    ["an empty baseUrl", { partnerId: "p1", baseUrl: "" }],
  ])("validAccount refuses %s", (_name, account) => {
    expect(() => validAccount(account as never)).toThrow(
      new PartnerOrdersError("claimAccount needs { partnerId, baseUrl }, both non-empty text."),
    );
  });
});
