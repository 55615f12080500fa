import { APIPromise, type WithResponse } from "../core/api-promise";
import {
  APITimeoutError,
  APIUserAbortError,
  parseRetryAfter,
  SubmissionTimeoutError,
} from "../core/errors";
import type { Submission, SubmissionStatus } from "../core/models";
import type { RequestOptions } from "../core/options";
import type { Paginated } from "../core/pagination";
import { type Answer, abortedWait, pollSubmission, type WaitOptions } from "../core/polling";
import type { CallOptions, Transport } from "../core/transport";
import {
  assertValid,
  checkCursor,
  checkLimit,
  checkSubmissionId,
  checkSubmissionStatus,
  optional,
} from "../core/validation";
import type { Clock } from "../internal/clock";
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
    private readonly transport: Transport,
    private readonly clock: Clock,
  ) {}

  /** Every submission this partner created, newest first. */
  list(params: SubmissionListParams = {}, options?: RequestOptions): Paginated<Submission> {
    const { status, cursor } = params;
    const limit =
      typeof params.limit === "number" ? Math.min(params.limit, maxSubmissionLimit) : params.limit;
    const operation = {
      operationId: "listSubmissions",
      method: "GET" as const,
      path: "/v1/orders/submissions",
      query: { status, limit },
      // Rejected when the list is first used, like every other call's bad arguments: the call itself
      // returns normally, so `.catch()` and `Promise.allSettled` see the RequestValidationError.
      violations: [
        ...optional(status, checkSubmissionStatus, "status"),
        ...optional(params.limit, checkLimit, "limit"),
        ...optional(cursor, checkCursor, "cursor"),
      ],
      what: "submission list parameters",
    };
    return paginate<Submission>(this.transport, operation, "submissions", cursor, options);
  }

  /** One submission, in whatever state it is; `submissionId` is a UUID. */
  get(submissionId: string, options?: RequestOptions): APIPromise<Submission> {
    return this.transport.request<Submission>(getSubmission(submissionId), options);
  }

  /**
   * Waits for a submission to be `completed` or `failed`, polling as the service asks (every
   * `Retry-After`, 2 s). Use it to resume a wait another process started: see
   * `SubmissionTimeoutError.submissionId`. `.withResponse()` gives the terminal submission with
   * the HTTP response it came from.
   */
  wait(submissionId: string, options: WaitOptions = {}): APIPromise<Submission> {
    return new APIPromise(this.#wait(submissionId, options));
  }

  async #wait(submissionId: string, options: WaitOptions): Promise<WithResponse<Submission>> {
    assertValid(checkSubmissionId(submissionId), "submissionId");
    const { signal, maxRetries, headers } = options;
    const startedAt = this.clock.monotonic();
    const deadline = startedAt + (options.timeoutMs ?? 120_000);
    const poll = (until: number) =>
      this.answer(submissionId, { signal, maxRetries, headers, deadline: until });
    let first: Answer;
    try {
      first = await poll(deadline);
    } catch (error) {
      if (error instanceof APIUserAbortError) throw abortedWait(submissionId);
      throw this.timeoutOr(error, submissionId, startedAt);
    }
    options.onPoll?.(first.submission);
    const last = await pollSubmission({
      first,
      poll,
      deadline,
      startedAt,
      clock: this.clock,
      signal,
      onPoll: options.onPoll,
    });
    return { data: last.submission, response: last.response };
  }

  /** @internal One GET of a submission, with its poll hint. */
  async answer(submissionId: string, options: CallOptions): Promise<Answer> {
    const { data, response } = await this.transport
      .request<Submission>(getSubmission(submissionId), options)
      .withResponse();
    return {
      submission: data,
      retryAfterSeconds: parseRetryAfter(response.headers, this.clock.now()),
      response,
    };
  }

  /** @internal Within a bounded wait, running out of time is the wait's own timeout. */
  timeoutOr(error: unknown, submissionId: string, startedAt: number): unknown {
    if (!(error instanceof APITimeoutError)) return error;
    const waited = Math.round(this.clock.monotonic() - startedAt);
    return new SubmissionTimeoutError(submissionId, undefined, waited);
  }
}

function getSubmission(submissionId: string) {
  return {
    operationId: "getSubmission",
    method: "GET" as const,
    path: "/v1/orders/submissions/{submissionId}",
    pathParams: { submissionId },
    violations: checkSubmissionId(submissionId),
    what: "submissionId",
  };
}
