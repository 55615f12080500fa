import type { MirrorContext } from "./context";
import type { MirrorError } from "./errors";
import { fatalError } from "./fatal";

/**
 * The failed reads of one batch: each transient one is warned of at once; the first that no retry
 * can fix (a credential revoked mid-pass, say) is kept and thrown once the batch is done, so a
 * pass never goes on as if it were fine.
 */
export class Failures {
  readonly #ctx: MirrorContext;
  #fatal: MirrorError | undefined;
  count = 0;

  constructor(ctx: MirrorContext) {
    this.#ctx = ctx;
  }

  add(message: string, error: unknown, next: string): void {
    this.count++;
    const fatal = fatalError(error);
    if (fatal) this.#fatal ??= fatal;
    else this.#ctx.warn(message, error, next);
  }

  throwIfFatal(): void {
    if (this.#fatal) throw this.#fatal;
  }
}
