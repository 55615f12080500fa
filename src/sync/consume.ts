import { type ConsumeOptions, type ConsumerGroupStore, isGroupStore } from "./consume-types";
import type { MirrorContext } from "./context";
import { MirrorError } from "./errors";
import type { Feed } from "./feed";

/** The most changes one batch may ask for. */
const MAX_BATCH = 10_000;

/**
 * `consume()`: batches handed to a handler, the position advanced only when it resolves, until
 * `signal` aborts or the mirror closes. On a store that shares consumers (PostgreSQL) each batch
 * is claimed in a transaction the handler writes through, and acknowledged in it (exactly once);
 * elsewhere the position is stored after the handler (at least once). A handler that throws
 * leaves its batch unacknowledged and its error is thrown; a store that cannot be reached for a
 * while is waited out with warnings.
 */
export async function consume(
  ctx: MirrorContext,
  feed: Feed,
  options: ConsumeOptions,
): Promise<void> {
  const { consumer, batchSize, handler, signal } = checkOptions(options);
  const { store } = ctx;
  if (isGroupStore(store))
    return consumeGroup(store, ctx, feed, consumer, batchSize, handler, signal);
  let position = await feed.retrying(signal, () => feed.start(consumer, "beginning"));
  while (position !== undefined && !signal?.aborted && !feed.closed) {
    const from = position;
    const before = feed.heard;
    const batch = await feed.retrying(signal, () => feed.read(consumer, from, batchSize));
    if (batch === undefined) return;
    if (batch.length === 0) {
      await feed.waitForChanges(signal, before);
      continue;
    }
    await handler(batch, { exactlyOnce: false });
    const last = (batch[batch.length - 1] as { id: number }).id;
    // Stored even when aborted meanwhile: the batch was handled.
    const stored = await feed.retrying(undefined, () =>
      store.setPosition(consumer, last).then(() => true),
    );
    if (stored === undefined) return;
    position = last;
  }
}

async function consumeGroup(
  store: ConsumerGroupStore,
  ctx: MirrorContext,
  feed: Feed,
  consumer: string,
  batchSize: number,
  handler: ConsumeOptions["handler"],
  signal: AbortSignal | undefined,
): Promise<void> {
  if ((await feed.retrying(signal, () => feed.startGroup(consumer, "beginning"))) === undefined)
    return;
  while (!signal?.aborted && !feed.closed) {
    const before = feed.heard;
    const batch = await feed.retrying(signal, () =>
      store.claimChanges(consumer, batchSize, feed.leaseMs),
    );
    if (batch === undefined) return;
    if (batch === null) {
      await feed.waitForChanges(signal, before);
      continue;
    }
    const settled = feed.hold(batch);
    try {
      await handler(batch.changes, batch.tx);
    } catch (error) {
      settled();
      await batch.release();
      throw error;
    }
    try {
      settled();
      await batch.ack();
    } catch (error) {
      if (!(error instanceof MirrorError) || error.code !== "store_unavailable") throw error;
      // Whether the COMMIT landed is unknown; the next claim reads what did: a batch whose
      // acknowledgement was lost comes again, its writes through `tx` lost with it.
      ctx.warn("acknowledging a batch failed", error, "it is claimed again if it did not land");
    }
  }
}

function checkOptions(options: ConsumeOptions): Required<Omit<ConsumeOptions, "signal">> & {
  signal: AbortSignal | undefined;
} {
  const given = options as Partial<ConsumeOptions> | undefined;
  if (typeof given?.consumer !== "string" || given.consumer === "")
    throw invalidConsume("consumer must be a name (non-empty text)");
  if (typeof given.handler !== "function")
    throw invalidConsume("handler must be a function (changes, tx) => Promise<void>");
  const batchSize = given.batchSize ?? 100;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH)
    throw invalidConsume(
      `batchSize must be a whole number from 1 to ${MAX_BATCH}, not ${String(batchSize).slice(0, 40)}`,
    );
  return { consumer: given.consumer, batchSize, handler: given.handler, signal: given.signal };
}

function invalidConsume(what: string): MirrorError {
  return new MirrorError("invalid_option", `consume: ${what}; nothing was consumed.`, {
    hint: 'Call mirror.consume({ consumer: "billing", batchSize: 100, handler: async (changes, tx) => { ... } }).',
  });
}
