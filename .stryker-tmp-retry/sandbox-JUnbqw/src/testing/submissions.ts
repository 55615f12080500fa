// @ts-nocheck
import type {
  ItemRecord,
  OrderRecord,
  OrderRequestInput,
  SubmissionError,
  SubmissionRecord,
  VariantRecord,
} from "./model";
import { centsToNumber, formatMoney, fromCents } from "./money";
import {
  catalogEntry,
  type LinePrice,
  priceLine,
  quantityProblem,
  SHIPPING_CENTS,
} from "./pricing";
import type { SandboxState } from "./state";

/**
 * Submissions move queued -> processing -> completed | failed on the sandbox clock (API document,
 * "Submission status"). Terminal states never revert; a downstream rejection is `failed` with
 * `order_rejected` errors, never an HTTP error (POST /v1/orders, Behaviour 7).
 */

export const isTerminal = (s: SubmissionRecord) =>
  s.status === "completed" || s.status === "failed";

function notify(state: SandboxState, submission: SubmissionRecord) {
  for (const listener of [...state.submissionListeners]) listener(submission);
}

export function startSubmission(
  state: SandboxState,
  partnerId: string,
  request: OrderRequestInput,
  bodyKey: string,
): SubmissionRecord {
  const submission: SubmissionRecord = {
    submissionId: crypto.randomUUID(),
    partnerId,
    partnerOrderId: request.partnerOrderId,
    bodyKey,
    request,
    status: "queued",
    seq: state.next.submissionSeq++,
  };
  state.submissions.set(submission.submissionId, submission);
  state.submissionsByKey.set(`${partnerId}\n${request.partnerOrderId}`, submission);
  state.counters.submissionsCreated++;
  const t0 = state.clock.now();
  const { processingAfterMs, completeAfterMs } = state.config.timings;
  state.clock.schedule(t0 + processingAfterMs, () => {
    if (submission.status !== "queued") return;
    submission.status = "processing";
    notify(state, submission);
  });
  state.clock.schedule(t0 + Math.max(processingAfterMs, completeAfterMs), () =>
    finish(state, submission),
  );
  return submission;
}

/** Resolves when the submission is terminal or `ms` of sandbox time have passed (Behaviour 3). */
export function waitForTerminal(
  state: SandboxState,
  submission: SubmissionRecord,
  ms: number,
): Promise<void> {
  if (isTerminal(submission) || ms <= 0) return Promise.resolve();
  // Parked: this handler waits for sandbox time, so `clock.runAll()` may move it on.
  return state.clock.park(
    new Promise((resolve) => {
      const done = () => {
        state.submissionListeners.delete(listener);
        cancel();
        resolve();
      };
      const listener = (s: SubmissionRecord) => {
        if (s === submission && isTerminal(s)) done();
      };
      state.submissionListeners.add(listener);
      const cancel = state.clock.schedule(state.clock.now() + ms, done);
    }),
  );
}

interface PricedLine {
  index: number;
  variant: VariantRecord;
  price: LinePrice;
  productName: string;
}

/** The platform's checks at processing time: catalog membership, variant, limits and stock. */
function checkLines(
  state: SandboxState,
  request: OrderRequestInput,
): { errors: SubmissionError[]; priced: PricedLine[] } {
  const errors: SubmissionError[] = [];
  const priced: PricedLine[] = [];
  const reserved = new Map<VariantRecord, number>();
  const site = state.sites.get(request.siteId);
  for (const [index, line] of request.lines.entries()) {
    const reject = (field: string, detail: string) =>
      errors.push({
        code: "order_rejected",
        detail,
        field: `lines[${index}].${field}`,
        partnerLineId: line.partnerLineId,
      });
    const product = catalogEntry(state.products, request.siteId, line.productId);
    if (!product || !site) {
      reject("productId", `Product ${line.productId} is not in the site's catalog.`);
      continue;
    }
    const variant =
      product.serviceType === "POD"
        ? product.variants[0]
        : product.variants.find((v) => v.variantId === line.variantId);
    if (!variant) {
      reject("variantId", `Variant ${line.variantId} does not belong to ${line.productId}.`);
      continue;
    }
    if (!product.priceable) {
      reject("productId", `Product ${line.productId} cannot be priced.`);
      continue;
    }
    const limit = quantityProblem(variant, line.quantity);
    if (limit) {
      reject("quantity", limit);
      continue;
    }
    const wanted = (reserved.get(variant) ?? 0) + line.quantity;
    if (variant.inventoryTracked && wanted > (variant.availableInventory ?? 0)) {
      reject(
        "quantity",
        `Only ${variant.availableInventory} of ${variant.sku ?? line.productId} in stock.`,
      );
      continue;
    }
    reserved.set(variant, wanted);
    priced.push({
      index,
      variant,
      price: priceLine(site, product, variant, line.quantity),
      productName: product.name,
    });
  }
  return { errors, priced };
}

function finish(state: SandboxState, submission: SubmissionRecord) {
  if (isTerminal(submission)) return;
  const { errors, priced } = checkLines(state, submission.request);
  if (errors.length > 0) {
    submission.status = "failed";
    submission.errors = errors;
    notify(state, submission);
    return;
  }
  const order = createOrder(state, submission.partnerId, submission.request, priced);
  const itemCents = priced.reduce((sum, l) => sum + l.price.beforeAdjustmentsCents, 0);
  submission.status = "completed";
  submission.order = {
    orderNumber: order.orderNumber,
    status: order.status,
    // After adjustments: the lines do not sum to it (API document, SubmittedOrderLine).
    totalPrice: centsToNumber(itemCents + SHIPPING_CENTS),
    projectId: order.projectId,
    lines: priced.map((l) => {
      const line = submission.request.lines[l.index] as OrderRequestInput["lines"][number];
      return {
        partnerLineId: line.partnerLineId,
        quantity: line.quantity,
        lineListTotal: centsToNumber(l.price.listCents),
        lineTotalBeforeAdjustments: centsToNumber(l.price.beforeAdjustmentsCents),
      };
    }),
  };
  notify(state, submission);
  state.emit({
    type: "order.status_changed",
    siteId: order.siteId,
    orderNumber: order.orderNumber,
    partnerOrderId: submission.partnerOrderId,
    submittedBy: submission.partnerId,
  });
}

function createOrder(
  state: SandboxState,
  partnerId: string,
  request: OrderRequestInput,
  priced: PricedLine[],
): OrderRecord {
  const now = state.clock.now();
  // placedOn is set once and monotonic (API document, Order): never before the newest order.
  const newest = Math.max(...[...state.orders.values()].map((o) => Date.parse(o.placedOn)));
  const placedOn = new Date(Math.max(now, newest + 1000)).toISOString();
  const orderNumber = state.next.orderNumber++;
  const day = 24 * 3_600_000;
  const items: ItemRecord[] = priced.map((l) => {
    const line = request.lines[l.index] as OrderRequestInput["lines"][number];
    if (l.variant.inventoryTracked)
      l.variant.availableInventory = (l.variant.availableInventory ?? 0) - line.quantity;
    const itemNumber = state.next.itemNumber++;
    return {
      orderNumber,
      siteId: request.siteId,
      itemNumber,
      sku: line.sku ?? l.variant.sku,
      productName: l.productName,
      productCode: String(itemNumber * 7),
      jobName: line.jobName ?? null,
      // The partner's own id for the line, echoed to correlate (API document, OrderItem.externalId).
      externalId: line.partnerLineId,
      quantity: line.quantity,
      lineListTotal: formatMoney(fromCents(l.price.listCents)),
      lineTotal: formatMoney(fromCents(l.price.beforeAdjustmentsCents)),
      shipped: false,
      shippedOn: null,
      cancelled: false,
      estimatedShipBy: new Date(now + 3 * day).toISOString(),
      shipBy: new Date(now + 4 * day).toISOString(),
      turnaroundBusinessDays: 3,
      visible: true,
    };
  });
  const item = priced.reduce((sum, l) => sum + fromCents(l.price.beforeAdjustmentsCents), 0n);
  const shipping = fromCents(SHIPPING_CENTS);
  const order: OrderRecord = {
    orderNumber,
    status: "Submitted",
    placedOn,
    updatedOn: placedOn,
    shippedOn: null,
    purchaseOrder: request.partnerOrderId,
    projectName: `API order ${request.partnerOrderId}`,
    projectId: state.next.projectId++,
    siteId: request.siteId,
    totals: {
      item: formatMoney(item),
      shipping: formatMoney(shipping),
      tax: null,
      order: formatMoney(item + shipping),
    },
    closed: false,
    partnerOrderId: request.partnerOrderId,
    submittedBy: partnerId,
    items,
    shipments: [],
  };
  state.orders.set(orderNumber, order);
  state.counters.ordersCreated++;
  return order;
}
