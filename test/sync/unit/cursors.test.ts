import { MirrorError } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { quiet } from "../../support/logger.js";
import { drive, type Setup, setupWith } from "../support.js";

/** A service whose order list misbehaves: the mirror must stop, never loop, and never keep a bad checkpoint. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const problem = (status: number, code: string) =>
  Response.json(
    { type: "about:blank", title: code, status, code, detail: code, requestId: "r" },
    { status, headers: { "content-type": "application/problem+json" } },
  );

/** Answers `GET /v1/orders` with `page(cursor)`; every other request goes to the sandbox. */
function listing(
  page: (cursor: string | null) => Response | undefined,
): Setup & { lists: (string | null)[] } {
  const lists: (string | null)[] = [];
  const s = setupWith({ logger: quiet }, (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/v1/orders") return undefined;
    const cursor = url.searchParams.get("cursor");
    lists.push(cursor);
    return page(cursor);
  });
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return Object.assign(s, { lists });
}

const empty = (nextCursor: string | null) => Response.json({ orders: [], nextCursor });

describe("the sweep's cursors", () => {
  it("a cycle (c1, c2, c1) ends the sweep at once, and the next sweep starts from the first page", async () => {
    const next: Record<string, string> = { "": "c1", c1: "c2", c2: "c1" };
    const s = listing((cursor) => empty(next[cursor ?? ""] ?? null));
    const error = await s.mirror.sync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect((error as MirrorError).code).toBe("cursor_cycle");
    expect((error as MirrorError).message).toContain("after 2 pages");
    expect(s.lists).toEqual([null, "c1", "c2"]);
    // The cycle never became the checkpoint: the next sweep asks for the first page.
    s.lists.length = 0;
    await s.mirror.sync().catch(() => undefined);
    expect(s.lists[0]).toBeNull();
    expect((await s.mirror.status()).lastSweep).toMatchObject({ ok: false, code: "cursor_cycle" });
  });

  it("a service refusing its own cursor restarts the sweep three times, waiting longer each time, then stops", async () => {
    const s = listing((cursor) => (cursor ? problem(400, "invalid_cursor") : empty("c1")));
    const started = s.sandbox.clock.now();
    const error = await drive(
      s.sandbox,
      s.mirror.sync().catch((e: unknown) => e),
      250,
    );
    expect((error as MirrorError).code).toBe("cursor_refused");
    // The first page and its cursor, four times: the start and three restarts.
    expect(s.lists).toEqual([null, "c1", null, "c1", null, "c1", null, "c1"]);
    // Waits of 1, 2 and 4 s between restarts, on the mirror's clock.
    expect(s.sandbox.clock.now() - started).toBeGreaterThanOrEqual(7_000);
    expect(s.sandbox.clock.now() - started).toBeLessThan(9_000);
  });
});
