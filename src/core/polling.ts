import type { Clock } from "../internal/clock";
import { APIPromise, type WithResponse } from "./api-promise";
import {
  APITimeoutError,
  APIUserAbortError,
  SubmissionLocationError,
  SubmissionTimeoutError,
} from "./errors";
import type { CallOptions, Operation } from "./http/operation";
import type { Http } from "./http/request";
import { parseRetryAfter } from "./http/retry";
import type { Submission } from "./models";
import { checkSubmissionId } from "./validation";

/** The deadline of a whole wait without `timeoutMs` (README, "Submitting orders safely"). */
export const defaultWaitTimeoutMs = 120_000;
/** The poll interval when a non-terminal answer carries no `Retry-After` (API document, Limits). */
export const defaultPollIntervalMs = 2_000;
/** No poll loop spins faster than this, whatever a hint says. */
const minPollIntervalMs = 250;

/** Options of a wait for a submission: `submitOrderAndWait` and `submissions.wait`. */
export interface WaitOptions {
  /**
   * Deadline of the whole wait, in milliseconds: the POST, its retries and every poll.
   * @default 120000
   */
  timeoutMs?: number;
  /** Aborts the wait, its requests and its sleeps; it then throws `APIUserAbortError`. */
  signal?: AbortSignal;
  /**
   * Retries of each request of the wait (the POST, each poll), across all retryable answers; the
   * deadline bounds them all.
   * @default the client's `maxRetries` (2)
   */
  maxRetries?: number;
  /**
   * Headers added to each request of the wait, over the client's `defaultHeaders`; as for any
   * call, `Authorization`, `Content-Type` and `Accept` cannot be set.
   */
  headers?: Record<string, string>;
  /** Called with every submission state seen, the first answer included. */
  onPoll?: (submission: Submission) => void;
}

interface Answer {
  submission: Submission;
  /** Seconds the service asked to wait before the next poll, when it said. */
  retryAfterSeconds: number | null;
  /** The HTTP response the submission came from, for `.withResponse()`. */
  response: Response;
}

export function isTerminal(submission: Submission): boolean {
  return submission.status === "completed" || submission.status === "failed";
}

/** @internal What the waiter needs from the client that owns it. */
export interface WaiterConfig {
  http: Http;
  clock: Clock;
  /** The configured origin: a `Location` to poll elsewhere is refused. */
  baseUrl: URL;
  /** Blanks the client's secrets out of server text placed in a message. */
  redact: (text: string) => string;
  /** The GET of one submission, as the submissions resource describes it. */
  getSubmission: (submissionId: string) => SubmissionCall;
}

/** A call that answers with a submission: the POST of an order, or the GET of a submission. */
type SubmissionCall = Operation<"submitOrder" | "getSubmission">;

/**
 * The one waiter, behind `client.submitOrderAndWait` and `client.submissions.wait`. It owns the
 * deadline of the whole wait ({@link defaultWaitTimeoutMs} unless `timeoutMs` says), which bounds
 * the first request, its retries and every poll: a retry, a sleep or a request that would pass it
 * is not started, and the wait ends with
 * {@link SubmissionTimeoutError} carrying the last state. Between polls it sleeps what `Retry-After`
 * says ({@link defaultPollIntervalMs} otherwise), reports each state to `onPoll`, and turns an abort
 * on a known submission into an {@link APIUserAbortError} naming it. `failed` is returned, not thrown
 * (API document, Errors rule 6).
 *
 * @internal Made by {@link PartnerOrders}.
 */
export class SubmissionWaiter {
  readonly #config: WaiterConfig;

  constructor(config: WaiterConfig) {
    this.#config = config;
  }

  /**
   * Sends `first` (the order's POST, or the GET of a known submission), then polls until the
   * submission is terminal. Without `submissionId` (the POST), the first answer's `Location` says
   * what to poll, refused unless it is a submission on the configured origin. The arguments are
   * validated once, by the request path, from the violations `first` carries.
   */
  wait(first: SubmissionCall, options: WaitOptions, submissionId?: string): APIPromise<Submission> {
    return new APIPromise(this.#traced(first, options, submissionId));
  }

  /** The wait, under a span with an event per poll when telemetry is on. */
  async #traced(
    first: SubmissionCall,
    options: WaitOptions,
    knownId: string | undefined,
  ): Promise<WithResponse<Submission>> {
    const slot = this.#config.http.telemetry;
    if (slot?.ready) await slot.ready;
    const run = (traced: WaitOptions) => this.#wait(first, traced, knownId);
    const hooks = slot?.hooks;
    if (!hooks) return run(options);
    return hooks.wait(knownId ? "submissions.wait" : "submitOrderAndWait", options, run);
  }

  async #wait(
    operation: SubmissionCall,
    options: WaitOptions,
    knownId: string | undefined,
  ): Promise<WithResponse<Submission>> {
    const { clock } = this.#config;
    const { signal, maxRetries, headers, onPoll } = options;
    const startedAt = clock.monotonic();
    const deadline = startedAt + (options.timeoutMs ?? defaultWaitTimeoutMs);
    const call: CallOptions = { signal, maxRetries, headers, deadline };
    let first: Answer;
    try {
      first = await this.#request(operation, call);
    } catch (error) {
      // Before the first answer there is no state to report; the id is known only for a resume.
      if (error instanceof APITimeoutError) {
        throw new SubmissionTimeoutError(knownId ?? "", undefined, waited(clock, startedAt));
      }
      if (error instanceof APIUserAbortError && knownId !== undefined) throw abortedWait(knownId);
      throw error;
    }
    onPoll?.(first.submission);
    const target =
      knownId ?? this.#pollTarget(first.response.headers.get("location"), first.submission);
    let answer = first;
    for (;;) {
      const { submission } = answer;
      if (isTerminal(submission)) return { data: submission, response: answer.response };
      const waitMs = Math.max(
        minPollIntervalMs,
        answer.retryAfterSeconds === null ? defaultPollIntervalMs : answer.retryAfterSeconds * 1000,
      );
      const timeout = () =>
        new SubmissionTimeoutError(submission.submissionId, submission, waited(clock, startedAt));
      if (clock.monotonic() + waitMs >= deadline) throw timeout();
      try {
        await clock.sleep(waitMs, signal);
      } catch {
        throw abortedWait(submission.submissionId);
      }
      try {
        answer = await this.#request(this.#config.getSubmission(target), call);
      } catch (error) {
        // Within a bounded wait, running out of time on a poll is the wait's timeout.
        if (error instanceof APITimeoutError) throw timeout();
        if (error instanceof APIUserAbortError) throw abortedWait(submission.submissionId);
        throw error;
      }
      onPoll?.(answer.submission);
    }
  }

  /** One request of the wait, with its poll hint. */
  async #request(operation: SubmissionCall, call: CallOptions): Promise<Answer> {
    const { http, clock } = this.#config;
    const { data, response } = await http.call(operation, call).withResponse();
    return {
      submission: data,
      retryAfterSeconds: parseRetryAfter(response.headers, clock.now()),
      response,
    };
  }

  /**
   * The submission a first answer's `Location` points at. It is resolved against `baseUrl` and
   * refused when it leads to another origin: credentials never leave the configured origin.
   */
  #pollTarget(location: string | null, submission: Submission): string {
    if (!location) return submission.submissionId;
    const { baseUrl: base, redact } = this.#config;
    // The id and the origin are server text: a hostile answer may echo a secret in them.
    const refuse = (reason: string) =>
      new SubmissionLocationError(redact(submission.submissionId), redact(reason));
    let url: URL;
    try {
      url = new URL(location, base);
    } catch {
      // Every error thrown extends PartnerOrdersError, this one included
      // (README, "Errors and retries").
      throw refuse("the Location to poll is not a URL");
    }
    if (url.origin !== base.origin) {
      throw refuse(
        `the Location to poll is on another origin (${url.origin}), refused so credentials stay with ${base.origin}`,
      );
    }
    const last = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    let id: string | undefined;
    try {
      id = decodeURIComponent(last);
    } catch {
      // Malformed percent-encoding: no id, refused below.
    }
    if (checkSubmissionId(id).length > 0) {
      throw refuse("the Location to poll does not end in a submission id");
    }
    return id as string;
  }
}

function waited(clock: Clock, startedAt: number): number {
  return Math.round(clock.monotonic() - startedAt);
}

/**
 * The abort of a wait on a known submission: the order exists, so the error names it and says how
 * to resume (an aborted call throws APIUserAbortError: README, "Errors and retries").
 */
export function abortedWait(submissionId: string): APIUserAbortError {
  return new APIUserAbortError(
    `The wait for submission ${submissionId} was aborted; the order was submitted. Resume with ` +
      `client.submissions.wait("${submissionId}").`,
    { submissionId },
  );
}
