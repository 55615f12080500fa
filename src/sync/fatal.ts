import { diagnose } from "../internal/diagnose";
import { FATAL_MIRROR_CODES, MirrorError } from "./errors";

/**
 * The error `run()` stops with when `error` is one no retry can fix (see `diagnose`), with the
 * problem's code and what to do; undefined when waiting may mend it.
 */
export function fatalError(error: unknown): MirrorError | undefined {
  if (error instanceof MirrorError) {
    // One made here and thrown again once a batch of reads ended (a credential revoked mid-round)
    // carries the refusal as its cause: it still ends the mirror.
    const fatal = FATAL_MIRROR_CODES.has(error.code) || fatalError(error.cause) !== undefined;
    return fatal ? error : undefined;
  }
  const { fatal, code, message, hint } = diagnose(error);
  if (!fatal) return undefined;
  return new MirrorError(code, `The mirror stops: ${message}`, { hint, cause: error });
}
