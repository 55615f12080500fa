import type { ChangeWatch } from "../consume-types";
import type { Connections, PgClientLike } from "./pg-connection";

/** A client that hears notifications (pg's `Client` emits them). */
type NotifiedClient = PgClientLike & {
  on(event: "notification", listener: () => void): unknown;
  removeListener(event: "notification", listener: () => void): unknown;
};

/**
 * `LISTEN` on one connection kept out of the pool, shared by every loop of this store that waits
 * for changes. A commit that writes changes runs `pg_notify` in its transaction, so the listeners
 * hear it once it is visible. A connection that fails (a restart, a terminated backend) is dropped;
 * the next periodic look listens again, and until then the looks alone find new changes.
 */
export class ChangeListener {
  readonly #connections: Connections;
  readonly #channel: string;
  readonly #wakes = new Set<() => void>();
  #client: NotifiedClient | undefined;
  #connecting: Promise<void> | undefined;
  // Stryker disable next-line BooleanLiteral: equivalent, watch() sets it before anything reads it
  #stopped = false;

  constructor(connections: Connections, channel: string) {
    this.#connections = connections;
    this.#channel = channel;
  }

  /** Starts listening (when not already) and calls `wake` on every notification until stopped. */
  watch(wake: () => void): ChangeWatch {
    this.#wakes.add(wake);
    this.#stopped = false;
    this.#listen();
    return {
      look: () => this.#listen(),
      stop: async () => {
        this.#wakes.delete(wake);
        if (this.#wakes.size === 0) await this.close();
      },
    };
  }

  /** Stops listening and gives the connection back. */
  async close(): Promise<void> {
    this.#stopped = true;
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    client.removeListener("notification", this.#heard);
    try {
      await client.query(`UNLISTEN ${quote(this.#channel)}`);
      client.release();
    } catch (error) {
      client.release(error as Error);
    }
    client.removeListener("error", this.#lost);
  }

  /** Listens unless already listening (or on the way to). Never throws: the looks go on. */
  #listen(): void {
    if (this.#client || this.#connecting || this.#stopped || this.#wakes.size === 0) return;
    this.#connecting = (async () => {
      let client: NotifiedClient | undefined;
      try {
        client = (await this.#connections.checkOut(this.#lost)) as unknown as NotifiedClient;
        client.on("notification", this.#heard);
        await client.query(`LISTEN ${quote(this.#channel)}`);
        // Stryker disable next-line StringLiteral: equivalent, the error only closes the connection
        if (this.#stopped) throw new Error("stopped");
        this.#client = client;
        // Changes committed while nobody listened are found by the loops' next read.
        this.#heard();
      } catch (error) {
        if (client) {
          client.removeListener("notification", this.#heard);
          client.removeListener("error", this.#lost);
          client.release(error as Error);
        }
      } finally {
        this.#connecting = undefined;
      }
    })();
  }

  readonly #heard = (): void => {
    for (const wake of this.#wakes) wake();
  };

  readonly #lost = (error: Error): void => {
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    client.removeListener("notification", this.#heard);
    client.removeListener("error", this.#lost);
    client.release(error);
  };
}

/** The channel a store's commits notify: one per PostgreSQL schema. */
export function channelName(scope: string | undefined): string {
  if (scope === undefined) return "partner_orders_changes";
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(scope)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return `partner_orders_changes_${(hash >>> 0).toString(16)}`;
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
