/**
 * Submit an order safely and wait for its outcome. Run it twice: the second run answers with the
 * same submission (created: false) instead of placing a second order.
 *
 *   PARTNER_ORDERS_BASE_URL=... PARTNER_ORDERS_CLIENT_ID=... PARTNER_ORDERS_CLIENT_SECRET=... \
 *     npx tsx examples/submit-order.ts
 */
// @ts-nocheck

import {
  isProblem,
  type OrderRequest,
  PartnerOrders,
  RequestValidationError,
  SubmissionTimeoutError,
} from "partner-orders";

const client = new PartnerOrders({ logger: console });

const request: OrderRequest = {
  siteId: Number(process.env.SITE_ID ?? 1),
  // The idempotency key: derive it from your own order id, never from a random value per attempt.
  partnerOrderId: process.env.PARTNER_ORDER_ID ?? "example-order-0001",
  shipTo: {
    name: "Ada Lovelace",
    address1: "12 St James's Square",
    city: "London",
    state: "London",
    postalCode: "SW1Y 4JH",
    country: "GB",
    email: "ada@example.com",
  },
  lines: [
    { productId: process.env.PRODUCT_ID ?? "SLO_1001", partnerLineId: "line-1", quantity: 25 },
  ],
};

try {
  const submission = await client.submitOrderAndWait(request, {
    timeoutMs: 120_000,
    onPoll: (s) => console.log(`submission ${s.submissionId}: ${s.status}`),
  });
  if (submission.status === "completed") {
    const { orderNumber, totalPrice } = submission.order;
    console.log(`order ${orderNumber} placed, total ${totalPrice.toFixed(2)}`);
  } else if (submission.status === "failed") {
    // Failed is an answer, not an HTTP error: fix what it names and submit under a NEW partnerOrderId.
    for (const e of submission.errors)
      console.log(`rejected: ${e.code} ${e.field ?? ""} ${e.detail}`);
  }
} catch (err) {
  if (err instanceof RequestValidationError) {
    for (const v of err.violations) console.log(`fix ${v.path}: ${v.message}`); // nothing was sent
  } else if (err instanceof SubmissionTimeoutError) {
    // The order may still complete: keep the id and resume later.
    console.log(
      `still ${err.submission?.status}; resume with submissions.wait("${err.submissionId}")`,
    );
  } else if (isProblem(err, "partner_order_id_reused")) {
    console.log(
      "this partnerOrderId was used with a different body: use a new id or the original body",
    );
  } else {
    throw err;
  }
}
