import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import {
  Connections,
  type PgClientLike,
  type PgPoolLike,
} from "../../../src/sync/stores/pg-connection";
import { ChangeListener, channelName } from "../../../src/sync/stores/postgres-listen";

/** A pooled connection that records its statements and can fail on the test's word. */
class ScriptedClient extends EventEmitter {
  readonly statements: string[] = [];
  released: (Error | boolean | undefined)[] = [];
  failNext: Error | undefined;
  async query(text: string) {
    this.statements.push(text);
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    return { rows: [], rowCount: 0 };
  }
  release(error?: Error | boolean) {
    this.released.push(error);
  }
}

function scriptedPool() {
  const clients: ScriptedClient[] = [];
  let refuse: Error | undefined;
  let failFirst: Error | undefined;
  const pool = {
    connect(callback: (error: Error | undefined, client: PgClientLike | undefined) => void) {
      if (refuse) return callback(refuse, undefined);
      const client = new ScriptedClient();
      client.failNext = failFirst;
      failFirst = undefined;
      clients.push(client);
      callback(undefined, client as unknown as PgClientLike);
    },
    query: async () => ({ rows: [], rowCount: 0 }),
    end: async () => undefined,
  } as unknown as PgPoolLike;
  return {
    clients,
    refuse: (error: Error | undefined) => {
      refuse = error;
    },
    failListen: (error: Error) => {
      failFirst = error;
    },
    listener: new ChangeListener(new Connections(() => pool, "PostgreSQL test"), "chan_1"),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("ChangeListener", () => {
  it("listens on one connection for every watcher, wakes them on a notification, and once on connecting", async () => {
    const t = scriptedPool();
    let a = 0;
    let b = 0;
    const first = t.listener.watch(() => void a++);
    const second = t.listener.watch(() => void b++);
    await tick();
    expect(t.clients).toHaveLength(1);
    expect(t.clients[0]?.statements).toEqual(['LISTEN "chan_1"']);
    // Changes committed before it listened are read by the loops it wakes now.
    expect([a, b]).toEqual([1, 1]);
    t.clients[0]?.emit("notification", { channel: "chan_1" });
    expect([a, b]).toEqual([2, 2]);
    first.look();
    await tick();
    expect(t.clients).toHaveLength(1);
    await first.stop();
    t.clients[0]?.emit("notification", { channel: "chan_1" });
    expect([a, b]).toEqual([2, 3]);
    expect(t.clients[0]?.released).toEqual([]);
    await second.stop();
    expect(t.clients[0]?.statements).toEqual(['LISTEN "chan_1"', 'UNLISTEN "chan_1"']);
    expect(t.clients[0]?.released).toEqual([undefined]);
    expect(t.clients[0]?.listenerCount("error")).toBe(0);
    expect(t.clients[0]?.listenerCount("notification")).toBe(0);
  });

  it("drops a connection that fails and listens again at the next look", async () => {
    const t = scriptedPool();
    let woken = 0;
    const watch = t.listener.watch(() => void woken++);
    await tick();
    const lost = new Error("terminating connection due to administrator command");
    t.clients[0]?.emit("error", lost);
    expect(t.clients[0]?.released).toEqual([lost]);
    expect(t.clients[0]?.listenerCount("notification")).toBe(0);
    t.refuse(new Error("connect ECONNREFUSED"));
    watch.look();
    await tick();
    expect(t.clients).toHaveLength(1);
    t.refuse(undefined);
    watch.look();
    await tick();
    expect(t.clients).toHaveLength(2);
    expect(t.clients[1]?.statements).toEqual(['LISTEN "chan_1"']);
    expect(woken).toBe(2);
    expect(t.clients[0]?.listenerCount("error")).toBe(0);
    await watch.stop();
  });

  it("gives back a connection whose LISTEN fails, and one whose UNLISTEN fails", async () => {
    const t = scriptedPool();
    const failing = new Error("permission denied for LISTEN");
    t.failListen(failing);
    let woken = 0;
    const watch = t.listener.watch(() => void woken++);
    await tick();
    expect(t.clients[0]?.released).toEqual([failing]);
    expect(t.clients[0]?.listenerCount("error")).toBe(0);
    expect(woken).toBe(0);
    watch.look();
    await tick();
    expect(t.clients).toHaveLength(2);
    expect(woken).toBe(1);
    const unlisten = new Error("Connection terminated");
    (t.clients[1] as ScriptedClient).failNext = unlisten;
    await watch.stop();
    expect(t.clients[1]?.released).toEqual([unlisten]);
    // Stopped: a look no longer listens.
    watch.look();
    await tick();
    expect(t.clients).toHaveLength(2);
  });

  it("stops listening when closed while connecting, and names one channel per schema", async () => {
    const t = scriptedPool();
    t.listener.watch(() => undefined);
    await t.listener.close();
    expect(t.clients[0]?.released.length).toBe(1);
    expect(channelName(undefined)).toBe("partner_orders_changes");
    expect(channelName("partner_a")).toMatch(/^partner_orders_changes_[0-9a-f]{1,8}$/);
    expect(channelName("partner_a")).not.toBe(channelName("partner_b"));
    expect(channelName("partner_a")).toBe(channelName("partner_a"));
  });
});
