import type { Clock } from "../internal/clock";
import type { MirrorStore } from "./types";

/** What the status page reaches of a mirror: its store, opened through the mirror, and its clock. */
interface Registered {
  store: () => Promise<MirrorStore>;
  clock: Clock;
}

/**
 * Each mirror's store and clock, for the status page (read-only figures that `status()` does not
 * carry: requests per hour, changes after a given id; waits on the mirror's clock). Kept apart
 * from the mirror's public surface.
 */
const mirrors = new WeakMap<object, Registered>();

/** Called by a mirror as it is made: `open` opens its store once and resolves when it is ready. */
export function registerStore(
  mirror: object,
  parts: { store: MirrorStore; clock: Clock },
  open: () => Promise<void>,
): void {
  mirrors.set(mirror, { store: () => open().then(() => parts.store), clock: parts.clock });
}

/** The opened store of `mirror`; undefined for an object that is no `OrderMirror`. */
export function storeOf(mirror: object): Promise<MirrorStore> | undefined {
  return mirrors.get(mirror)?.store();
}

/** The clock of `mirror`; undefined for an object that is no `OrderMirror`. */
export function clockOf(mirror: object): Clock | undefined {
  return mirrors.get(mirror)?.clock;
}

/** True for an `OrderMirror` (a mirror that registered its store). */
export function hasStore(mirror: object): boolean {
  return mirrors.has(mirror);
}
