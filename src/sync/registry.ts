import type { MirrorStore } from "./types";

/**
 * Each mirror's store, opened through the mirror, for the status page (read-only figures that
 * `status()` does not carry: requests per hour, changes after a given id). Kept apart from the
 * mirror's public surface.
 */
const stores = new WeakMap<object, () => Promise<MirrorStore>>();

/** Called by a mirror as it is made: `open` opens its store once and resolves when it is ready. */
export function registerStore(mirror: object, store: MirrorStore, open: () => Promise<void>): void {
  stores.set(mirror, () => open().then(() => store));
}

/** The opened store of `mirror`; undefined for an object that is no `OrderMirror`. */
export function storeOf(mirror: object): Promise<MirrorStore> | undefined {
  return stores.get(mirror)?.();
}

/** True for an `OrderMirror` (a mirror that registered its store). */
export function hasStore(mirror: object): boolean {
  return stores.has(mirror);
}
