/**
 * The mirror's traces and metrics, through the client's telemetry (core/telemetry.ts): nothing
 * when `@opentelemetry/api` is not installed or the client has `telemetry: false`. A span per pass
 * (`partner-orders sync`) and per order read (`partner-orders read order`), a child of the active
 * span; changes written as a counter; the orders due, the oldest one's lag, each consumer's lag
 * and the orders kept out as invalid as gauges read from `status()` when the metrics are
 * collected.
 */
import type { BatchObservableResult, Counter, Observable } from "@opentelemetry/api";
import type { HttpHooks, TelemetrySlot } from "../core/http/hooks";
import type { Change, ChangeCause, MirrorStatus } from "./types";

/** The states of webhook health, each a series of its gauge (a state set). */
const HEALTH_STATES = ["unknown", "healthy", "degraded"] as const;
/** What the gauges read: the mirror, held weakly. */
interface Observed {
  status(): Promise<MirrorStatus>;
}

export class MirrorTelemetry {
  readonly #slot: TelemetrySlot | undefined;
  #changes: Counter | undefined;
  #stop: (() => void) | undefined;
  #closed = false;

  constructor(slot: TelemetrySlot | undefined, mirror: Observed) {
    this.#slot = slot;
    if (!slot) return;
    const start = () => {
      if (slot.hooks && !this.#closed) this.#observe(slot.hooks, new WeakRef(mirror));
    };
    if (slot.ready) void slot.ready.then(start);
    else start();
  }

  /** Runs `run` (a pass) under a span `partner-orders sync`; `after` says what it did. */
  pass<T>(run: () => Promise<T>, after?: (result: T) => Record<string, string | number>) {
    return this.#traced("sync", {}, run, after);
  }

  /** Runs `run` (one order's read) under a span `partner-orders read order`, counting its changes. */
  read(orderNumber: number, cause: ChangeCause, run: () => Promise<Change[]>): Promise<Change[]> {
    const attributes = {
      "partner_orders.order_number": orderNumber,
      "partner_orders.change.cause": cause,
    };
    return this.#traced("read order", attributes, run, (changes) => {
      const counter = this.#changes;
      if (counter) {
        for (const change of changes) {
          counter.add(1, {
            "partner_orders.change.type": change.type,
            "partner_orders.change.cause": cause,
          });
        }
      }
      return { "partner_orders.changes": changes.length };
    });
  }

  /** Stops the gauges: a closed mirror is not read. */
  close(): void {
    this.#closed = true;
    this.#stop?.();
  }

  #traced<T>(
    name: string,
    attributes: Record<string, string | number>,
    run: () => Promise<T>,
    after?: (result: T) => Record<string, string | number>,
  ): Promise<T> {
    const slot = this.#slot;
    if (!slot) return run();
    if (slot.ready) return slot.ready.then(() => this.#traced(name, attributes, run, after));
    const hooks = slot.hooks;
    return hooks ? hooks.span(name, attributes, run, after) : run();
  }

  #observe(hooks: HttpHooks, mirror: WeakRef<Observed>): void {
    if (!hooks.metered) return;
    const { meter } = hooks;
    this.#changes = meter.createCounter("partner_orders.mirror.changes", {
      unit: "{change}",
      description: "Changes the mirror wrote, by type and cause.",
    });
    const gauge = (name: string, unit: string, description: string) =>
      meter.createObservableGauge(name, { unit, description });
    const open = gauge("partner_orders.mirror.orders.open", "{order}", "Open orders mirrored.");
    const due = gauge("partner_orders.mirror.orders.due", "{order}", "Open orders due for a poll.");
    const lag = gauge(
      "partner_orders.mirror.orders.due.lag",
      "s",
      "How late the oldest due order's poll is.",
    );
    const invalid = gauge(
      "partner_orders.mirror.orders.invalid",
      "{order}",
      "Orders kept out as invalid.",
    );
    const consumerLag = gauge(
      "partner_orders.mirror.consumer.lag",
      "{change}",
      "Changes a named consumer has not finished.",
    );
    const consumerAge = gauge(
      "partner_orders.mirror.consumer.lag.age",
      "s",
      "How long ago the oldest change a named consumer has not finished was observed.",
    );
    const interval = gauge(
      "partner_orders.mirror.poll.interval",
      "s",
      "The longest an open order now waits between polls.",
    );
    const health = gauge(
      "partner_orders.mirror.webhook.health",
      "1",
      "Webhook health as the mirror believes it: 1 for the state it is in, 0 for the others.",
    );
    const observables: Observable[] = [
      open,
      due,
      lag,
      invalid,
      consumerLag,
      consumerAge,
      interval,
      health,
    ];
    const callback = async (result: BatchObservableResult) => {
      const live = mirror.deref();
      if (!live || this.#closed) return;
      let status: MirrorStatus;
      try {
        status = await live.status();
      } catch {
        // A store that cannot be read now gives no values; the next collection tries again.
        return;
      }
      result.observe(open, status.openOrders);
      result.observe(due, status.dueNow);
      result.observe(lag, (status.oldestDueLagMs ?? 0) / 1000);
      result.observe(invalid, status.invalidOrders.length);
      result.observe(interval, status.pollIntervalMs / 1000);
      for (const state of HEALTH_STATES) {
        result.observe(health, state === status.webhookHealth.state ? 1 : 0, {
          "partner_orders.webhook.state": state,
        });
      }
      for (const consumer of status.consumers) {
        const named = { "partner_orders.consumer": consumer.name };
        result.observe(consumerLag, consumer.lagChanges, named);
        result.observe(consumerAge, consumer.lagMs / 1000, named);
      }
    };
    meter.addBatchObservableCallback(callback, observables);
    this.#stop = () => meter.removeBatchObservableCallback(callback, observables);
  }
}
