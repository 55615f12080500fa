/** What the mirror reports: a pass's report and progress, and its status for operators. */

import type { PollPolicyName, WebhookHealth } from "./poll-types";
import type { StoreAccount } from "./store-types";

/** What one {@link OrderMirror.sync} pass (or the work of `run()` so far) did. */
export interface SyncReport {
  /** Orders seen on the list. */
  ordersSeen: number;
  /** Orders stored for the first time. */
  ordersAdded: number;
  /** Orders whose fields differed from the stored ones. */
  ordersChanged: number;
  /** Orders whose items were re-read. */
  itemsReread: number;
  /** Orders whose shipments were re-read. */
  shipmentsReread: number;
  /** Changes recorded. */
  changesWritten: number;
  /** HTTP requests made through the client (retries counted by the client, not here). */
  requests: number;
  /** Orders kept out because the client could not decode them (tried again next sweep). */
  invalidOrders: InvalidOrder[];
  /** How long the pass took, in milliseconds (the mirror's clock). */
  durationMs: number;
}

/** How far a pass has come, for a progress line (`sync({ onProgress })`, `run({ onProgress })`). */
export interface SyncProgress {
  /** List pages read in this pass. */
  pages: number;
  /** Orders seen on the list in this pass. */
  orders: number;
  /** Requests made in this pass. */
  requests: number;
  /** Requests per second in this pass so far. */
  ratePerSecond: number;
}

/** An order the mirror keeps out: the client could not decode what the service sent for it. */
export interface InvalidOrder {
  /** The order's number; null when the row carried none that could be read. */
  orderNumber: number | null;
  /** The field at fault, as a path (`totals.order`, `items[].lineTotal`). */
  field: string;
  /** Why it was refused. */
  reason: string;
  /** When the mirror last tried it (ISO 8601, the mirror's clock). */
  at: string;
}

/** What {@link OrderMirror.status} tells an operator. Times are ISO 8601 on the mirror's clock. */
export interface MirrorStatus {
  /** The last sweep that ended, in any process: when, and whether it finished or the error's code. */
  lastSweep:
    | {
        /** When it ended. */
        at: string;
        /** It went to the end of the list. */
        ok: true;
      }
    | {
        /** When it ended. */
        at: string;
        /** It failed. */
        ok: false;
        /** The error's code. */
        code: string;
      }
    | null;
  /** Who holds the sweep now, if anyone; `self` when it is this mirror. */
  sweepHolder: {
    /** The holder's name: `host/pid/id`. */
    holder: string;
    /** When it took the sweep; null when the store does not know. */
    since: string | null;
    /** When its lease runs out unless renewed. */
    expiresAt: string;
    /** True when it is this mirror. */
    self: boolean;
  } | null;
  /** Orders not closed (re-read every `pollIntervalMs` at most). */
  openOrders: number;
  /**
   * Webhook health as the mirror believes it, from what every process on the store recorded; with
   * `pollPolicy: "adaptive"` it decides how often open orders are polled.
   */
  webhookHealth: WebhookHealth;
  /**
   * The longest an open order now waits between polls, in ms: `maxOpenOrderIntervalMs` while
   * webhooks are healthy under `pollPolicy: "adaptive"` (counted from each order's last read of its
   * items and shipments), else `openOrderIntervalMs`.
   */
  pollIntervalMs: number;
  /** The poll policy in use (`pollPolicy`). */
  pollPolicy: PollPolicyName;
  /** Orders whose re-read is due now. */
  dueNow: number;
  /** How long the oldest due order has waited past its time, in ms; null when none is due. */
  oldestDueLagMs: number | null;
  /** Orders kept out as invalid (see {@link InvalidOrder}). */
  invalidOrders: InvalidOrder[];
  /** The last error the mirror logged, in any process: when, its code and message. */
  lastError: {
    /** When it happened. */
    at: string;
    /** Its code (the problem's, or the mirror's). */
    code: string;
    /** What happened, without secrets. */
    message: string;
  } | null;
  /** Each named consumer: its position, and how far it trails the newest change. */
  consumers: ConsumerStatus[];
  /** The schema version of the store. */
  schemaVersion: number;
  /** The account the store belongs to; null before the first sync. */
  account: StoreAccount | null;
}

/** A named consumer's position and lag. */
export interface ConsumerStatus {
  /** The consumer's name. */
  name: string;
  /** The id of the last change it finished. */
  position: number;
  /** Changes written after its position. */
  lagChanges: number;
  /** How long ago the oldest change it has not finished was observed, in ms; 0 when caught up. */
  lagMs: number;
}
