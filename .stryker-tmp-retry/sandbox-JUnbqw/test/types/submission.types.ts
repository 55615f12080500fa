/**
 * Compile-time checks, run by `npm run typecheck`: `Submission` narrows by `status` (API.md,
 * "Details partners expect"). Each `@ts-expect-error` fails the type check if the line below it
 * ever compiles.
 */
// @ts-nocheck

import type { Submission, SubmissionError, SubmittedOrder } from "partner-orders";

export function afterCompleted(s: Submission): SubmittedOrder {
  if (s.status === "completed") {
    // No `&& s.order` needed: a completed submission always carries its order.
    const total = s.order.totalPrice;
    total.toFixed(2);
    //  a completed submission has no errors
    s.errors.length;
    return s.order;
  }
  //  before narrowing, the order may be absent
  return s.order;
}

export function afterFailed(s: Submission): SubmissionError[] {
  if (s.status === "failed") {
    //  a failed submission has no order
    s.order.orderNumber;
    return s.errors;
  }
  //  before narrowing, the errors may be absent
  return s.errors;
}

export function whilePending(s: Submission): void {
  if (s.status === "queued" || s.status === "processing") {
    //  queued and processing carry no order
    s.order.orderNumber;
    //  queued and processing carry no errors
    s.errors.length;
  }
}

export function bySwitch(s: Submission): string {
  switch (s.status) {
    case "completed":
      return String(s.order.orderNumber);
    case "failed":
      return s.errors.map((e) => e.code).join(", ");
    default:
      return s.status;
  }
}

//  a completed submission without its order is not a Submission
export const completedWithoutOrder: Submission = { submissionId: "s", status: "completed" };
//  a failed submission without its errors is not a Submission
export const failedWithoutErrors: Submission = { submissionId: "s", status: "failed" };
