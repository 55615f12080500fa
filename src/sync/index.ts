/**
 * `partner-orders/sync`: a local mirror of the partner's orders, items and shipments that converges
 * on the service's truth, and a stream of what changed (README, "Keeping a local mirror").
 */

export type {
  AtLeastOnceTransaction,
  ConsumeOptions,
  ConsumeTransaction,
  ExactlyOnceTransaction,
} from "./consume-types";
export {
  ChangesExpiredError,
  MirrorError,
  SchemaVersionError,
  type StoreAccount,
  StoreAccountError,
  StoreLockedError,
  StoreUnavailableError,
  SweepHeldError,
} from "./errors";
export { OrderMirror } from "./mirror";
export type { PollPolicyName, WebhookHealth } from "./poll-types";
export type { OrderQuery } from "./query";
export type { ResyncOptions } from "./resync";
export { mirrorStatusPage } from "./status-page/handler";
export type {
  MirrorStatusPage,
  MirrorStatusPageOptions,
  NodeStatusPageRequest,
  NodeStatusPageResponse,
} from "./status-page/types";
export {
  type PgClientLike,
  type PgPoolLike,
  type PgResult,
  type PostgresStoreOptions,
  postgresStore,
} from "./stores/postgres";
export { MIRROR_SCHEMA_VERSION } from "./stores/schema";
export { sqliteStore } from "./stores/sqlite";
export type {
  Change,
  ChangeBase,
  ChangeCause,
  ChangesFrom,
  ChangeType,
  Commit,
  ConsumerStatus,
  FieldChanges,
  InvalidOrder,
  MirroredOrder,
  MirrorStatus,
  MirrorStore,
  NewChange,
  OrderCommit,
  OrderMirrorOptions,
  PageWrite,
  RunOptions,
  StoredOrder,
  StoreOrderQuery,
  SyncOptions,
  SyncProgress,
  SyncReport,
} from "./types";
