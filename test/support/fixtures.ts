import type { OrderRequest } from "../../src/core/models";
import type { MirrorStatus } from "../../src/sync/types";

export const submissionId = "3f2b8c1e-6d4a-4b5e-9f1a-2c3d4e5f6a7b";

/** A minimal valid order request. */
export function orderRequest(partnerOrderId = "PO-1"): OrderRequest {
  return {
    siteId: 7,
    partnerOrderId,
    shipTo: {
      name: "Ada Lovelace",
      address1: "1 Main St",
      city: "Springfield",
      state: "IL",
      postalCode: "62701",
      country: "US",
    },
    lines: [{ productId: "SLO_123", partnerLineId: "line-1", quantity: 2, variantId: 9 }],
  } as OrderRequest;
}

export function submission(status: string, extra: Record<string, unknown> = {}) {
  return { submissionId, status, ...extra };
}

export function completedSubmission() {
  return submission("completed", {
    order: {
      orderNumber: 1001,
      status: "Pending",
      totalPrice: 12.5,
      projectId: 5,
      lines: [
        {
          partnerLineId: "line-1",
          quantity: 2,
          lineListTotal: 15,
          lineTotalBeforeAdjustments: 12.5,
        },
      ],
    },
  });
}

export function order(orderNumber: number, totals: Record<string, string | null> = {}) {
  return {
    orderNumber,
    status: "Pending",
    placedOn: "2030-01-01T00:00:00Z",
    updatedOn: "2030-01-01T00:00:00Z",
    siteId: 7,
    closed: false,
    totals: { item: "1.0000000000", shipping: null, tax: null, order: "1.0000000000", ...totals },
  };
}

/** What GET /v1/me answers for a bearer-token partner with one granted site. */
export const me = {
  partnerId: "p",
  partnerName: "P",
  grantedSiteIds: [7],
  authMethod: "COGNITO_M2M",
  scopes: [],
};

/** The polling part of a `MirrorStatus` for a store that never received a webhook. */
export const noWebhooks: Pick<MirrorStatus, "webhookHealth" | "pollIntervalMs" | "pollPolicy"> = {
  webhookHealth: {
    state: "unknown",
    reason: null,
    lastEventAt: null,
    eventsPerHour: null,
    silenceLimitMs: null,
    lastUnannounced: null,
  },
  pollIntervalMs: 300_000,
  pollPolicy: "adaptive",
};
