// @ts-nocheck
import type { ClockTimers } from "./clock";
import type {
  ClientRecord,
  OrderRecord,
  PartnerRecord,
  ProductRecord,
  SiteRecord,
  SubmissionRecord,
} from "./model";
import { type SeedData, seedData } from "./seed";

/** A minted access token; the credential behind it is re-resolved on every request (API document, Rotation). */
export interface TokenRecord {
  clientId: string;
  /** Scopes granted at minting (requested ∩ capabilities at that time). */
  scopes: string[];
  expiresAt: number;
}

/** A client certificate bound to a partner by subject DN and serial number (API document, Mutual TLS). */
export interface CertificateRecord {
  partnerId: string;
  subject: string;
  serialNumber: string;
}

/** What a test can read back: how often each thing happened. */
export interface SandboxCounters {
  /** Requests by `METHOD /path/{template}`, e.g. `GET /v1/orders/{orderNumber}`; unmatched paths as they came. */
  requests: Record<string, number>;
  /** Every POST /oauth2/token, successful or not. */
  tokenRequests: number;
  /** Tokens actually issued. */
  tokensIssued: number;
  /** Submission records created (201 answers). */
  submissionsCreated: number;
  /** Orders created by completed submissions. */
  ordersCreated: number;
  /** Webhook delivery attempts, duplicates included. */
  webhookDeliveries: number;
  /** Requests answered (or dropped, or delayed) by an injected fault. */
  faultsTriggered: number;
}

/** A state change that webhooks announce (API document, "Events"). */
export interface SandboxEvent {
  type: string;
  siteId: number;
  orderNumber: number;
  partnerOrderId?: string;
  shipmentNumber?: number;
  /** Internal: the partner that submitted the order; never sent. */
  submittedBy?: string;
}

/** When a new submission moves on, in milliseconds after its creation, on the sandbox clock. */
export interface SandboxTimings {
  /** From `queued` to `processing`. */
  processingAfterMs: number;
  /** From creation to `completed` or `failed`. */
  completeAfterMs: number;
}

/** The whole mutable world of one sandbox. Routes read and change it; nothing else is shared. */
export interface SandboxState {
  clock: ClockTimers;
  partners: Map<string, PartnerRecord>;
  clients: Map<string, ClientRecord>;
  sites: Map<number, SiteRecord>;
  /** Sorted by (productId); variants by variantId. */
  products: ProductRecord[];
  orders: Map<number, OrderRecord>;
  submissions: Map<string, SubmissionRecord>;
  /** `${partnerId}\n${partnerOrderId}` -> submission: the idempotency index. */
  submissionsByKey: Map<string, SubmissionRecord>;
  tokens: Map<string, TokenRecord>;
  certificates: CertificateRecord[];
  counters: SandboxCounters;
  next: { orderNumber: number; itemNumber: number; submissionSeq: number; projectId: number };
  /** Publishes an event to the webhook registrations (wired by the sandbox). */
  emit: (event: SandboxEvent) => void;
  /** Called whenever a submission changes state (the POST's synchronous wait listens here). */
  submissionListeners: Set<(submission: SubmissionRecord) => void>;
  config: {
    tokenTtlSeconds: number;
    syncWaitMs: number;
    timings: SandboxTimings;
    packagesPerResponse: number;
  };
}

export function newCounters(): SandboxCounters {
  return {
    requests: {},
    tokenRequests: 0,
    tokensIssued: 0,
    submissionsCreated: 0,
    ordersCreated: 0,
    webhookDeliveries: 0,
    faultsTriggered: 0,
  };
}

export function createState(
  clock: ClockTimers,
  seed: number,
  config: SandboxState["config"],
): SandboxState {
  const data: SeedData = seedData(seed);
  return {
    clock,
    partners: new Map(data.partners.map((p) => [p.partnerId, p])),
    clients: new Map(data.clients.map((c) => [c.clientId, c])),
    sites: new Map(data.sites.map((s) => [s.siteId, s])),
    products: [...data.products].sort((a, b) =>
      a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0,
    ),
    orders: new Map(data.orders.map((o) => [o.orderNumber, o])),
    submissions: new Map(),
    submissionsByKey: new Map(),
    tokens: new Map(),
    certificates: [],
    counters: newCounters(),
    emit: () => {},
    submissionListeners: new Set(),
    next: {
      orderNumber: data.nextOrderNumber,
      itemNumber: data.nextItemNumber,
      submissionSeq: 1,
      projectId: 90_000,
    },
    config,
  };
}

const sorted = new WeakMap<SandboxState, { size: number; list: OrderRecord[] }>();

/**
 * Orders sorted as the list endpoint pages them: by (placedOn, orderNumber). The sort key never
 * changes once an order exists, so the sorted list is kept until an order is added: paging a
 * sandbox of 100,000 orders does not sort them again for every page.
 */
export function sortedOrders(state: SandboxState): OrderRecord[] {
  const cached = sorted.get(state);
  if (cached && cached.size === state.orders.size) return cached.list;
  const list = [...state.orders.values()].sort((a, b) =>
    a.placedOn < b.placedOn ? -1 : a.placedOn > b.placedOn ? 1 : a.orderNumber - b.orderNumber,
  );
  sorted.set(state, { size: state.orders.size, list });
  return list;
}
