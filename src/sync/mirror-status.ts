import { type MirrorContext, parseJson, STATUS } from "./context";
import { healthStatus } from "./poll-setup";
import { consumerStatuses } from "./stream";
import type { MirrorStatus } from "./types";

/**
 * `OrderMirror.status()`, read from the store so it covers every process of a fleet: the last
 * sweep and who holds the sweep now, open orders, the orders due and the oldest one's lag, orders
 * kept out as invalid, the last error, and each named consumer's position and lag.
 */
export async function readStatus(ctx: MirrorContext): Promise<MirrorStatus> {
  const { store, clock, holder } = ctx;
  const now = clock.now();
  const [info, lease, due, consumers, lastSweep, lastError] = await Promise.all([
    store.info(),
    store.leaseHolder("sweep"),
    store.dueStats(now),
    consumerStatuses(store, now),
    store.getCheckpoint(STATUS.lastSweep),
    store.getCheckpoint(STATUS.lastError),
  ]);
  const invalid = parseJson<MirrorStatus["invalidOrders"]>(
    await store.getCheckpoint(STATUS.invalid),
  );
  return {
    lastSweep: parseJson(lastSweep) ?? null,
    sweepHolder: lease
      ? {
          holder: lease.holder,
          since: Number.isFinite(lease.since) ? new Date(lease.since).toISOString() : null,
          expiresAt: new Date(lease.expiresAt).toISOString(),
          self: lease.holder === holder,
        }
      : null,
    openOrders: due.open,
    ...(await healthStatus(ctx)),
    dueNow: due.due,
    oldestDueLagMs: due.oldestDueAt === null ? null : Math.max(0, now - due.oldestDueAt),
    invalidOrders: invalid ?? [],
    lastError: parseJson(lastError) ?? null,
    consumers,
    schemaVersion: info.schemaVersion,
    account: info.account,
  };
}
