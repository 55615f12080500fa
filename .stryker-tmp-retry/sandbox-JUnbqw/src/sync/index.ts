/**
 * `partner-orders/sync`: a local mirror of the partner's orders, items and shipments that converges
 * on the service's truth, and a stream of what changed (API.md, "Keeping a local mirror").
 */
// @ts-nocheck

export { OrderMirror } from "./mirror";
export { type PgClientLike, type PgPoolLike, type PgResult, postgresStore } from "./postgres";
export { sqliteStore } from "./sqlite";
export type {
  Change,
  ChangeBase,
  ChangeCause,
  ChangeType,
  Commit,
  FieldChanges,
  MirroredOrder,
  MirrorStore,
  NewChange,
  OrderMirrorOptions,
  StoredOrder,
  SyncReport,
} from "./types";
