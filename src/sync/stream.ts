import type { MirrorContext } from "./context";
import type { ChangesFrom, ConsumerStatus, MirrorStore } from "./types";

/** Retention unless the options say otherwise: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60_000;

/**
 * Every named consumer: its position, the changes written after it and how long ago the oldest of
 * them was observed (0 when caught up).
 */
export async function consumerStatuses(store: MirrorStore, now: number): Promise<ConsumerStatus[]> {
  const [consumers, last] = await Promise.all([store.consumers(), store.lastChangeId()]);
  return Promise.all(
    consumers.map(async ({ name, position }) => {
      const oldest = position < last ? await store.firstObservedAfter(position) : null;
      return {
        name,
        position,
        lagChanges: Math.max(0, last - position),
        lagMs: oldest === null ? 0 : Math.max(0, now - Date.parse(oldest)),
      };
    }),
  );
}

/**
 * Moves a named consumer to the oldest kept change (`beginning`) or after the newest (`now`),
 * making it when it is new; returns the position it has now.
 */
export async function resetConsumer(
  store: MirrorStore,
  name: string,
  to: ChangesFrom,
): Promise<number> {
  const position = to === "now" ? await store.lastChangeId() : await store.prunedThrough();
  await store.setPosition(name, position);
  return position;
}

/**
 * Deletes the changes older than the retention. A failure is a warning: the next round tries
 * again, and changes kept a while longer harm nobody.
 */
export async function pruneChanges(ctx: MirrorContext): Promise<void> {
  const cutoff = ctx.clock.now() - ctx.retentionMs;
  // A retention longer than the epoch is old: nothing can be that old.
  if (cutoff <= 0) return;
  try {
    const { pruned, prunedThrough } = await ctx.store.pruneChanges(new Date(cutoff).toISOString());
    if (pruned > 0)
      ctx.log.info(`deleted ${pruned} changes older than the retention`, {
        pruned,
        prunedThrough,
      });
  } catch (error) {
    ctx.warn("deleting old changes failed", error, "it is tried again after the next sweep");
  }
}
