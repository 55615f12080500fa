import { PartnerOrdersError } from "../core/errors";
import type { StoreAccount, SyncReport } from "./types";

export type { StoreAccount } from "./types";

/**
 * Base of the errors the mirror throws itself (a store that refuses, a sweep held elsewhere, an
 * error no retry can fix). `code` is stable: branch on it; `hint` says what to do.
 */
export class MirrorError extends PartnerOrdersError {
  override name = "MirrorError";
  /** Stable, machine-readable: `store_locked`, `schema_too_new`, `sweep_held`... */
  readonly code: string;
  /** What an operator can do about it, in a sentence. */
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(options.hint ? `${message} ${options.hint}` : message, { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }
}

/**
 * Mirror errors no retry can fix: a store that refuses this process, this account or this version,
 * or a mirror already closed. Every other code (a database away, a sweep held or lost, a list
 * whose cursors misbehave) is waited out.
 */
export const FATAL_MIRROR_CODES: ReadonlySet<string> = new Set([
  "store_locked",
  "store_open_failed",
  "schema_too_new",
  "schema_mismatch",
  "store_account_mismatch",
  "mirror_closed",
]);

/** SQLite is one process: another live process runs the mirror on this file. */
export class StoreLockedError extends MirrorError {
  override name = "StoreLockedError";
  constructor(
    /** The database file. */
    readonly path: string,
    /** The process that holds it. */
    readonly holderPid: number,
    /** The host it runs on. */
    readonly holderHost: string,
  ) {
    super(
      "store_locked",
      `${path} is in use by process ${holderPid} on ${holderHost}, which runs the mirror on it.`,
      {
        hint: "SQLite is one process: stop that process, or use postgresStore for many. changes(), get() and orders() from other processes still work.",
      },
    );
  }
}

/** The store was written by a newer version of partner-orders. */
export class SchemaVersionError extends MirrorError {
  override name = "SchemaVersionError";
  constructor(
    /** The schema version the store holds. */
    readonly found: number,
    /** The newest version this package knows. */
    readonly supported: number,
    where: string,
  ) {
    super(
      "schema_too_new",
      `${where} has mirror schema version ${found}; this version of partner-orders knows versions up to ${supported}.`,
      { hint: "Upgrade partner-orders, or use another database." },
    );
  }
}

/** The store already belongs to another account (partner and base URL). */
export class StoreAccountError extends MirrorError {
  override name = "StoreAccountError";
  constructor(
    /** The account the store recorded on first use. */
    readonly stored: StoreAccount,
    /** The account of the client given to the mirror. */
    readonly given: StoreAccount,
  ) {
    super(
      "store_account_mismatch",
      `This store mirrors partner ${stored.partnerId} at ${stored.baseUrl}, not partner ${given.partnerId} at ${given.baseUrl}.`,
      {
        hint: "Use one store per account: another SQLite file, or postgresStore(url, { schema }).",
      },
    );
  }
}

/**
 * Another process holds the sweep: `sync()` made no sweep. It still read its share of the open
 * orders that were due; `report` says what it did.
 */
export class SweepHeldError extends MirrorError {
  override name = "SweepHeldError";
  /** What this process did meanwhile (its share of the due open orders). */
  report: SyncReport | undefined;
  constructor(
    /** The holder's name (`host/pid/id`). */
    readonly holder: string,
    /** When it took the sweep (ISO 8601), when known. */
    readonly since: string | null,
  ) {
    super(
      "sweep_held",
      `Another process holds the sweep (${holder}${since ? `, since ${since}` : ""}); no pass was made.`,
      {
        hint: "Wait for it to finish, or stop it; a holder that died is taken over automatically.",
      },
    );
  }
}

/**
 * The store could not be reached: its connection failed, and so did one retry on a fresh
 * connection (a restart, a failover, a network cut). Nothing was half-written: a transaction
 * either landed whole or not at all, and the mirror tries again later.
 */
export class StoreUnavailableError extends MirrorError {
  override name = "StoreUnavailableError";
  constructor(
    /** The store, named without its password. */
    readonly store: string,
    reason: string,
    options: { cause?: unknown } = {},
  ) {
    super("store_unavailable", `The mirror's store (${store}) is unavailable: ${reason}.`, {
      hint: "Check that the database is up and reachable; the mirror tries again later.",
      cause: options.cause,
    });
  }
}

/**
 * Changes a consumer had not finished were deleted by retention (`retentionMs`): it cannot go on
 * without a gap. Nothing was handed out past its position; `resetConsumer` moves it on.
 */
export class ChangesExpiredError extends MirrorError {
  override name = "ChangesExpiredError";
  constructor(
    /** The consumer's name; undefined for a `changes()` loop without one. */
    readonly consumer: string | undefined,
    /** The id of the last change it finished. */
    readonly position: number,
    /** The highest change id retention deleted: changes after `position` up to it are gone. */
    readonly prunedThrough: number,
    /** The oldest change still kept; null when none is. */
    readonly oldestKeptId: number | null,
  ) {
    const who =
      consumer === undefined ? "This changes() loop" : `The consumer ${JSON.stringify(consumer)}`;
    super(
      "changes_expired",
      `${who} is at change ${position}, but the changes after it up to ${prunedThrough} were deleted by retention (retentionMs): ids ${position + 1} to ${prunedThrough} are gone, at most ${prunedThrough - position} changes; the oldest change kept is ${oldestKeptId ?? "none (every change was deleted)"}.`,
      {
        hint:
          consumer === undefined
            ? "Start a new changes() loop; raise retentionMs to keep changes longer."
            : `Reconcile what the gap may hold from mirror.get(), then mirror.resetConsumer(${JSON.stringify(consumer)}, "beginning") (the oldest kept change) or "now" (partner-orders consumers reset ${consumer} --to beginning); raise retentionMs to keep changes longer.`,
      },
    );
  }
}
