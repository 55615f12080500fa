import type { APIPromise } from "../core/api-promise";
import { type Operation, operation } from "../core/http/operation";
import type { Http } from "../core/http/request";
import type { Submission, SubmissionStatus } from "../core/models";
import type { RequestOptions } from "../core/options";
import type { Paginated } from "../core/pagination";
import type { SubmissionWaiter, WaitOptions } from "../core/polling";
import {
  checkCursor,
  checkLimit,
  checkSubmissionId,
  checkSubmissionStatus,
  optional,
} from "../core/validation";
import { paginate } from "./list";

/** Filters and paging of `client.submissions.list()` (API document, GET /v1/orders/submissions). */
export interface SubmissionListParams {
  /** Only submissions in this state. */
  status?: SubmissionStatus;
  /** Page size. The service rejects values above 100, so larger ones are sent as 100. @default 50 */
  limit?: number;
  /** Resume from a stored `nextCursor`. */
  cursor?: string;
}

/** The largest submissions page the service accepts (it rejects, not caps, above; API document). */
const maxSubmissionLimit = 100;

/** Order submissions this partner created, and waiting for one to finish: `client.submissions`. */
export class Submissions {
  /** @internal Made by {@link PartnerOrders}; use `client.submissions`. */
  constructor(
    private readonly http: Http,
    private readonly waiter: SubmissionWaiter,
  ) {}

  /** Every submission this partner created, newest first. */
  list(params: SubmissionListParams = {}, options?: RequestOptions): Paginated<Submission> {
    const { status, cursor } = params;
    const limit =
      typeof params.limit === "number" ? Math.min(params.limit, maxSubmissionLimit) : params.limit;
    const list = operation(
      "listSubmissions",
      { params: { query: { status, limit } } },
      {
        // Rejected when the list is first used, like every other call's bad arguments: the call
        // itself returns normally, so `.catch()` and `Promise.allSettled` see the error.
        violations: [
          ...optional(status, checkSubmissionStatus, "status"),
          ...optional(params.limit, checkLimit, "limit"),
          ...optional(cursor, checkCursor, "cursor"),
        ],
        what: "submission list parameters",
      },
    );
    return paginate<Submission>(this.http, list, "submissions", cursor, options);
  }

  /** One submission, in whatever state it is; `submissionId` is a UUID. */
  get(submissionId: string, options?: RequestOptions): APIPromise<Submission> {
    return this.http.call(getSubmission(submissionId), options);
  }

  /**
   * Waits for a submission to be `completed` or `failed`, polling as the service asks (every
   * `Retry-After`, 2 s). Use it to resume a wait another process started: see
   * `SubmissionTimeoutError.submissionId`. `.withResponse()` gives the terminal submission with
   * the HTTP response it came from.
   */
  wait(submissionId: string, options: WaitOptions = {}): APIPromise<Submission> {
    return this.waiter.wait(getSubmission(submissionId), options, submissionId);
  }
}

/** @internal The GET of one submission: read once, or polled by the waiter. */
/** @internal The GET of one submission. */
export function getSubmission(submissionId: string): Operation<"getSubmission"> {
  return operation(
    "getSubmission",
    { params: { path: { submissionId } } },
    { violations: checkSubmissionId(submissionId), what: "submissionId" },
  );
}
