/** The options of the mirror and of its passes. */

import type { PartnerOrders } from "../client";
import type { Logger } from "../core/logger";
import type { Clock } from "../internal/clock";
import type { PollPolicyName } from "./poll-types";
import type { SyncProgress, SyncReport } from "./status-types";
import type { MirrorStore } from "./store-types";

/** Options of {@link OrderMirror.sync}. */
export interface SyncOptions {
  /** Called as the pass makes progress (after each list page and each batch of reads). */
  onProgress?: (progress: SyncProgress) => void;
}

/** Options of {@link OrderMirror.run}. */
export interface RunOptions extends SyncOptions {
  /** Ends the loop (after the write under way). */
  signal?: AbortSignal;
  /** Called after each sweep this process makes, with what it did. */
  onPass?: (report: SyncReport) => void;
}

/** Options of {@link OrderMirror}. */
export interface OrderMirrorOptions {
  /** A `PartnerOrders` client; every read goes through it, so its retries and `Retry-After` apply. */
  client: PartnerOrders;
  /** Where the mirror keeps its state: `sqliteStore(path)` or `postgresStore(url)`. */
  store: MirrorStore;
  /**
   * Sites to mirror.
   * @default every granted site
   */
  siteIds?: number[];
  /**
   * How often `run()` sweeps `GET /v1/orders` to the end.
   * @default 900000 (15 min)
   */
  sweepIntervalMs?: number;
  /**
   * How often `run()` re-reads the items and shipments of each order that is not closed.
   * @default 300000 (5 min)
   */
  openOrderIntervalMs?: number;
  /**
   * The longest an open order waits between polls while webhooks are healthy (`pollPolicy:
   * "adaptive"`): each open order is polled this long after its last read of items and shipments,
   * the longest a delivery, quantity or tracking update waits; at least `openOrderIntervalMs`.
   * @default 3600000 (1 h), or `openOrderIntervalMs` when that is longer
   */
  maxOpenOrderIntervalMs?: number;
  /**
   * `"adaptive"`: open-order polling follows webhook health (see `MirrorStatus.webhookHealth`);
   * `"fixed"`: every open order every `openOrderIntervalMs`, whatever webhooks do.
   * @default "adaptive"
   */
  pollPolicy?: PollPolicyName;
  /**
   * Requests in flight at once, per process.
   * @default 4
   */
  concurrency?: number;
  /**
   * How long the sweep lease lasts without renewal (a holder renews it as its sweep makes
   * progress). Processes sharing a `postgresStore` sweep one at a time. A holder that died is
   * passed over at once when the store can tell (SQLite: its process is gone; PostgreSQL: its
   * connection closed), and after this long otherwise.
   * @default 60000 (1 min)
   */
  sweepLeaseMs?: number;
  /**
   * How long changes are kept: `run()` deletes older ones now and then (after sweeps). A consumer
   * whose position falls behind the oldest kept change gets `ChangesExpiredError`.
   * @default 2592000000 (30 days)
   */
  retentionMs?: number;
  /**
   * How long a member of a consumer group (PostgreSQL: processes reading one consumer name) may sit
   * on a claimed batch, idle, before the server ends its transaction and its unfinished share passes
   * to the other members. A member whose process dies loses its share at once (its connection
   * closes). A handler or loop body that takes longer than this on one batch loses it too.
   * @default 30000 (30 s)
   */
  consumerLeaseMs?: number;
  /**
   * Where warnings go (a failed read, a store error, a process that cannot keep up), each with the
   * problem's code and what the mirror does next; never a token or a body.
   * @default warnings to stderr
   */
  logger?: Logger;
  /**
   * Time as the mirror sees it; inject one in tests so `run()` never sleeps for real.
   * @default the client's default, the system clock
   */
  clock?: Clock;
}
