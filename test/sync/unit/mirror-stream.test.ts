import { type MirrorStore, sqliteStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { quiet } from "../../support/logger.js";
import { setup } from "../support.js";

/** The mirror's side of the change stream: when run() prunes, consumers() and resetConsumer(). */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const MINUTE = 60_000;

async function settle(turns = 50) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(check: () => boolean) {
  for (let i = 0; i < 50_000; i++) {
    if (check()) return;
    await settle(1);
  }
  throw new Error("never happened");
}

/** An in-memory store whose retention calls are recorded with the cutoff they were given. */
function countingStore(): { store: MirrorStore; cutoffs: string[] } {
  const store = sqliteStore(":memory:");
  const cutoffs: string[] = [];
  const prune = store.pruneChanges.bind(store);
  store.pruneChanges = (before) => {
    cutoffs.push(before);
    return prune(before);
  };
  return { store, cutoffs };
}

function make(options: Parameters<typeof setup>[1] = {}) {
  const s = setup(":memory:", { logger: quiet, ...options });
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return s;
}

describe("run() and retention", () => {
  it("prunes after its first sweep and then once per sweep interval, at now minus retentionMs", async () => {
    const { store, cutoffs } = countingStore();
    const s = make({
      store,
      retentionMs: 60 * MINUTE,
      sweepIntervalMs: 15 * MINUTE,
      openOrderIntervalMs: 5 * MINUTE,
    });
    const start = s.sandbox.clock.now();
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    await until(() => cutoffs.length > 0);
    expect(cutoffs).toEqual([new Date(start - 60 * MINUTE).toISOString()]);
    expect((await s.mirror.status()).lastSweep).toMatchObject({ ok: true });
    // Polls wake it every 5 minutes: no pruning in between.
    for (const _ of [1, 2]) {
      s.sandbox.clock.advance(5 * MINUTE);
      await settle(200);
    }
    expect(cutoffs).toHaveLength(1);
    s.sandbox.clock.advance(5 * MINUTE);
    await until(() => cutoffs.length > 1);
    expect(cutoffs).toEqual([
      new Date(start - 60 * MINUTE).toISOString(),
      new Date(start - 45 * MINUTE).toISOString(),
    ]);
    abort.abort();
    await running;
  });

  it("a failing prune is a warning; the loop goes on", async () => {
    const { store } = countingStore();
    store.pruneChanges = () => Promise.reject(new Error("disk full"));
    const warnings: string[] = [];
    const s = make({
      store,
      logger: { ...quiet, warn: (message: string) => warnings.push(message) },
    });
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    await until(() => warnings.length > 0);
    expect(warnings[0]).toMatch(
      /^\[partner-orders\] deleting old changes failed \(Error\); it is tried again/,
    );
    abort.abort();
    await running;
  });
});

describe("options and arguments of the stream", () => {
  it("refuses a retentionMs that is not a positive number", () => {
    for (const retentionMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => make({ retentionMs })).toThrow(
        new PartnerOrdersError("retentionMs must be a positive number."),
      );
    }
  });

  it("refuses a bad start or name before opening anything; a closed mirror resets nothing", async () => {
    const s = make();
    await expect(s.mirror.changes({ from: "soon" as never }).next()).rejects.toMatchObject({
      code: "invalid_argument",
      message: 'changes()\'s from must be "beginning" or "now", not "soon".',
    });
    await expect(s.mirror.changes({ consumer: "" }).next()).rejects.toMatchObject({
      code: "invalid_argument",
      message: 'changes() needs a consumer name (non-empty text), not "".',
    });
    await expect(s.mirror.resetConsumer("a", "later" as never)).rejects.toMatchObject({
      message: 'resetConsumer\'s to must be "beginning" or "now", not "later".',
    });
    await expect(s.mirror.resetConsumer("", "now")).rejects.toMatchObject({
      message: 'resetConsumer needs a consumer name (non-empty text), not "".',
    });
    await s.mirror.resetConsumer("made", "now");
    expect(await s.mirror.consumers()).toEqual([
      { name: "made", position: 0, lagChanges: 0, lagMs: 0 },
    ]);
    await s.mirror.close();
    await expect(s.mirror.resetConsumer("made", "beginning")).rejects.toMatchObject({
      code: "mirror_closed",
    });
  });
});
