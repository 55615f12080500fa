/** The public types of open-order polling and webhook health (no imports: a leaf). */

/**
 * How open orders are polled: `adaptive` follows webhook health (open orders polled every
 * `maxOpenOrderIntervalMs` while webhooks announce every announceable change); `fixed` polls every open order every
 * `openOrderIntervalMs`, whatever webhooks do.
 */
export type PollPolicyName = "adaptive" | "fixed";

/** Webhook health as the mirror believes it, with the figures it rests on. */
export interface WebhookHealth {
  /**
   * `unknown`: no webhook received yet (polling stays at `openOrderIntervalMs`); `healthy`: webhooks
   * arrive and every announceable change found was announced (each open order is polled
   * `maxOpenOrderIntervalMs` after its last read); `degraded`: see `reason` (back to
   * `openOrderIntervalMs`).
   */
  state: "unknown" | "healthy" | "degraded";
  /**
   * Why it is degraded: `unannounced` (a poll or sweep found an announceable change no webhook
   * announced, within the last 24 h) or `silence` (no webhook for longer than the delivery rate
   * makes likely); null unless degraded.
   */
  reason: "unannounced" | "silence" | null;
  /** When the last webhook arrived, in any process; null when none has. */
  lastEventAt: string | null;
  /** Webhooks per hour lately (the last 12-24 h); null until two have arrived. */
  eventsPerHour: number | null;
  /** A silence longer than this (ms) counts as webhooks lost; null when none has arrived. */
  silenceLimitMs: number | null;
  /** The last announceable change found that no webhook announced; null when none was. */
  lastUnannounced: {
    /** When it was found. */
    at: string;
    /** The order it was found on. */
    orderNumber: number;
    /** The change's type (`order.changed` for a status, `shipment.shipped`...). */
    type: string;
  } | null;
}
