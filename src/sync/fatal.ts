import { APIError } from "../core/errors";
import { MirrorError } from "./errors";

/** Mirror errors that waiting can mend. */
const TRANSIENT = new Set([
  "store_unavailable",
  "sweep_held",
  "sweep_lease_lost",
  "cursor_cycle",
  "cursor_refused",
]);

/** True for an error no retry can fix: the mirror stops and says so. */
export function isFatal(error: unknown): boolean {
  if (error instanceof MirrorError) return !TRANSIENT.has(error.code);
  if (!(error instanceof APIError)) return false;
  if (error.path.startsWith("/oauth2/"))
    return error.status >= 400 && error.status < 500 && error.status !== 429;
  if (error.code === "insufficient_scope" || error.code === "invalid_site_id") return true;
  return error.status === 401;
}
