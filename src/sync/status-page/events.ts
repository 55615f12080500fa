import type { Clock } from "../../internal/clock";
import type { MirrorStore } from "../types";
import { changeLine } from "./search";

/** How often an open stream looks for new changes in the store (any process's commits). */
export const LOOK_MS = 1_000;
/**
 * A `status` event this often tells the page to read its figures again: requests, due orders and
 * lag move without a change being committed.
 */
export const STATUS_MS = 5_000;
/** A comment this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
/** Changes read from the store at once. */
const BATCH = 100;

/**
 * Where a stream starts: after the change a reconnecting browser last saw (`Last-Event-ID`), so a
 * dropped connection loses nothing, else after the newest change (new changes from now on).
 */
export async function streamStart(store: MirrorStore, lastEventId: string | null): Promise<number> {
  const newest = await store.lastChangeId();
  if (lastEventId !== null && /^\d{1,15}$/.test(lastEventId)) {
    return Math.min(Number(lastEventId), newest);
  }
  return newest;
}

/**
 * Writes server-sent events, one `change` event per change after `after`, until `signal` aborts:
 * reads the store (every process's commits) every {@link LOOK_MS} of the mirror's clock. A store
 * that cannot be read is tried again; the stream stays open. Every {@link STATUS_MS} a `status`
 * event (no data of its own) asks the page to re-read `status.json`.
 */
export async function streamChanges(
  store: MirrorStore,
  clock: Clock,
  after: number,
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  let position = after;
  let idleMs = 0;
  let sinceStatusMs = 0;
  write("retry: 3000\n\n");
  while (!signal.aborted) {
    let batch: Awaited<ReturnType<MirrorStore["changesAfter"]>> = [];
    try {
      batch = await store.changesAfter(position, BATCH);
    } catch {
      write(": the store could not be read; trying again\n\n");
    }
    if (signal.aborted) return;
    for (const change of batch) {
      write(`id: ${change.id}\nevent: change\ndata: ${JSON.stringify(changeLine(change))}\n\n`);
      position = change.id;
    }
    if (batch.length === BATCH) continue;
    sinceStatusMs += LOOK_MS;
    if (sinceStatusMs >= STATUS_MS) {
      sinceStatusMs = 0;
      write("event: status\ndata: {}\n\n");
    }
    idleMs = batch.length ? 0 : idleMs + LOOK_MS;
    if (idleMs >= KEEP_ALIVE_MS) {
      idleMs = 0;
      write(": keep-alive\n\n");
    }
    await clock.sleep(LOOK_MS, signal).catch(() => undefined);
  }
}
