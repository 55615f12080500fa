import type { MirrorContext } from "./context";
import { STATUS } from "./context";
import { fatalError } from "./fatal";

/** Records the mirror's last error where every process's `status()` reads it; never fails. */
export function recordError(ctx: MirrorContext, code: string, message: string): void {
  const at = new Date(ctx.clock.now()).toISOString();
  void ctx.store
    .setCheckpoint(STATUS.lastError, JSON.stringify({ at, code, message: message.slice(0, 500) }))
    .catch(() => undefined);
}

/** Throws (recorded and logged) the error `run()` stops with when `error` is one no retry can fix. */
export function throwIfFatal(ctx: MirrorContext, error: unknown): void {
  const fatal = fatalError(error);
  if (!fatal) return;
  recordError(ctx, fatal.code, fatal.message);
  ctx.log.error(fatal.message, { code: fatal.code });
  throw fatal;
}
