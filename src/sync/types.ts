/**
 * The mirror's types, gathered from the leaf modules that define them (each leaf imports only
 * other leaves, never this file, so modules may import either without a cycle).
 */

export type {
  Change,
  ChangeBase,
  ChangeCause,
  ChangesFrom,
  ChangeType,
  FieldChanges,
  NewChange,
} from "./change-types";
export type { OrderMirrorOptions, RunOptions, SyncOptions } from "./option-types";
export type { MirroredOrder, StoredOrder, StoreOrderQuery } from "./order-types";
export type {
  ConsumerStatus,
  InvalidOrder,
  MirrorStatus,
  SyncProgress,
  SyncReport,
} from "./status-types";
export type { Commit, MirrorStore, OrderCommit, PageWrite, StoreAccount } from "./store-types";
