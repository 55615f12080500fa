import { PartnerOrdersError } from "../core/errors";
import { createLog } from "../core/logger";
import { systemClock } from "../internal/clock";
import { httpOf } from "../internal/http-access";
import { positive } from "./checks";
import { Counters, codeOf, InvalidOrders, type MirrorContext, messageOf } from "./context";
import { newHolder } from "./holder";
import { recordError } from "./last-error";
import { PartnerIds } from "./partner-ids";
import { policyFor } from "./poll-setup";
import { DEFAULT_RETENTION_MS } from "./stream";
import { MirrorTelemetry } from "./telemetry";
import type { MirrorStatus, OrderMirrorOptions } from "./types";

/** What the context of a mirror calls back into the mirror for. */
export interface MirrorHooks {
  /** The mirror, whose `status()` telemetry's gauges read. */
  mirror: { status(): Promise<MirrorStatus> };
  /** Tells `changes()` loops of this process that changes were written. */
  changed(): void;
}

/**
 * The context a mirror's parts share, from its options checked and their defaults applied; bad
 * options are refused here, before anything is opened.
 */
export function mirrorContext(options: OrderMirrorOptions, hooks: MirrorHooks): MirrorContext {
  if (!options?.client || !options.store) {
    throw new PartnerOrdersError("OrderMirror needs { client, store }.");
  }
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new PartnerOrdersError("concurrency must be a whole number >= 1.");
  }
  const clock = options.clock ?? systemClock;
  // Warnings reach stderr unless the partner routes them: a mirror in trouble is never silent.
  const log = createLog(options.logger ?? console, "warn");
  const store = options.store;
  const openIntervalMs = positive(options.openOrderIntervalMs ?? 5 * 60_000, "openOrderIntervalMs");
  const ctx: MirrorContext = {
    client: options.client,
    store,
    clock,
    log,
    holder: newHolder(),
    siteIds: options.siteIds?.length ? [...options.siteIds] : [undefined],
    sweepIntervalMs: positive(options.sweepIntervalMs ?? 15 * 60_000, "sweepIntervalMs"),
    openIntervalMs,
    policy: policyFor(options, { store, clock, log, openIntervalMs }),
    leaseMs: positive(options.sweepLeaseMs ?? 60_000, "sweepLeaseMs"),
    concurrency,
    retentionMs: positive(options.retentionMs ?? DEFAULT_RETENTION_MS, "retentionMs"),
    report: new Counters(clock),
    changed: () => hooks.changed(),
    invalid: new InvalidOrders(store),
    partnerIds: new PartnerIds(),
    telemetry: new MirrorTelemetry(httpOf(options.client)?.telemetry, hooks.mirror),
    warn: (message, error, next) => {
      const code = codeOf(error);
      const said = messageOf(error).slice(0, 300);
      log.warn(`${message} (${code}); ${next}`, { code, error: said });
      recordError(ctx, code, `${message}: ${said}`);
    },
  };
  return ctx;
}
