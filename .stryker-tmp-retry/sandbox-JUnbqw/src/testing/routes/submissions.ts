// @ts-nocheck
import type { SubmissionRecord } from "../model";
import { positiveInt, rejectUpdatedSince, submissionIdParam } from "../params";
import { catalogEntry } from "../pricing";
import { json, ProblemError } from "../problem";
import { renderSubmission } from "../render";
import type { Principal, RouteContext, RouteDefinition } from "../router";
import { isTerminal, startSubmission, waitForTerminal } from "../submissions";
import { canonicalJson, OrderValidationError, validateOrderBody } from "../validate-order";
import { keysetPage } from "./page";

/** One Submission answer; a non-terminal one carries the poll hints (API document, Behaviour 5). */
function submissionResponse(
  status: number,
  submission: SubmissionRecord,
  requestId: string,
): Response {
  const hints: Record<string, string> = isTerminal(submission)
    ? {}
    : { "retry-after": "2", location: `/v1/orders/submissions/${submission.submissionId}` };
  return json(status, renderSubmission(submission), requestId, hints);
}

const invalidRequest = (detail: string) => new ProblemError(400, "invalid_request", detail);

const submitOrder: RouteDefinition = {
  method: "POST",
  path: "/v1/orders",
  async handle(ctx: RouteContext) {
    const { state } = ctx;
    const principal = ctx.principal as Principal;
    let input: ReturnType<typeof validateOrderBody>;
    try {
      input = validateOrderBody(new Uint8Array(await ctx.request.arrayBuffer()));
    } catch (error) {
      if (error instanceof OrderValidationError) throw invalidRequest(error.message);
      throw error;
    }
    if (!principal.partner.grantedSiteIds.includes(input.siteId)) {
      throw new ProblemError(
        400,
        "invalid_site_id",
        `siteId ${input.siteId} is not a granted site.`,
      );
    }
    // variantId is required for STOCK and omitted for POD; a product absent from the catalog is not
    // a validation error but a later `order_rejected` (API document, line fields).
    input.lines.forEach((line, i) => {
      const product = catalogEntry(state.products, input.siteId, line.productId);
      const hasVariant = line.variantId !== undefined && line.variantId !== null;
      if (product?.serviceType === "STOCK" && !hasVariant) {
        throw invalidRequest(
          `lines[${i}].variantId: is required for the STOCK product ${line.productId}`,
        );
      }
      if (product?.serviceType === "POD" && hasVariant) {
        throw invalidRequest(
          `lines[${i}].variantId: must be omitted for the POD product ${line.productId}`,
        );
      }
    });

    const bodyKey = canonicalJson(input);
    const existing = state.submissionsByKey.get(
      `${principal.partner.partnerId}\n${input.partnerOrderId}`,
    );
    if (existing) {
      // Idempotency by partnerOrderId (Behaviour 6): the same body is safe to resend after a timeout.
      if (existing.bodyKey === bodyKey) return submissionResponse(200, existing, ctx.requestId);
      throw new ProblemError(
        409,
        "partner_order_id_reused",
        `partnerOrderId ${input.partnerOrderId} was used before with a different body.`,
      );
    }
    if (!state.sites.get(input.siteId)?.orderingUser) {
      throw new ProblemError(
        409,
        "ordering_not_provisioned",
        `Site ${input.siteId} has no ordering user configured.`,
      );
    }
    const submission = startSubmission(state, principal.partner.partnerId, input, bodyKey);
    await waitForTerminal(state, submission, state.config.syncWaitMs);
    return submissionResponse(201, submission, ctx.requestId);
  },
};

const STATUSES = new Set(["queued", "processing", "completed", "failed"]);

const listSubmissions: RouteDefinition = {
  method: "GET",
  path: "/v1/orders/submissions",
  handle(ctx) {
    const { query } = ctx;
    rejectUpdatedSince(query);
    const status = query.get("status");
    if (status !== null && !STATUSES.has(status)) {
      throw invalidRequest("status: must be queued, processing, completed or failed");
    }
    // Above 100 is rejected, not capped (API document, submissions list).
    const rawLimit = query.get("limit");
    const limit = rawLimit === null ? 50 : positiveInt(rawLimit);
    if (limit === null || limit > 100)
      throw invalidRequest("limit: must be an integer from 1 to 100");
    const partnerId = (ctx.principal as Principal).partner.partnerId;
    const rows = [...ctx.state.submissions.values()]
      .filter((s) => s.partnerId === partnerId && (status === null || s.status === status))
      .sort((a, b) => b.seq - a.seq);
    const page = keysetPage(
      "submissions",
      rows,
      query.get("cursor"),
      limit,
      (s) => ({ q: s.seq }),
      (s, k) => s.seq < Number(k.q),
    );
    return json(
      200,
      { submissions: page.data.map(renderSubmission), nextCursor: page.nextCursor },
      ctx.requestId,
    );
  },
};

const getSubmission: RouteDefinition = {
  method: "GET",
  path: "/v1/orders/submissions/{submissionId}",
  handle(ctx) {
    const id = submissionIdParam(ctx.params.submissionId ?? "");
    const submission = ctx.state.submissions.get(id);
    // Another partner's submission is the same 404 as one that never existed.
    if (!submission || submission.partnerId !== (ctx.principal as Principal).partner.partnerId) {
      throw new ProblemError(404, "submission_not_found", `Submission ${id} was not found.`);
    }
    return submissionResponse(200, submission, ctx.requestId);
  },
};

export const submissionRoutes: RouteDefinition[] = [submitOrder, listSubmissions, getSubmission];
