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

export const defaultWaitTimeoutMs = 120_000;
export const defaultPollIntervalMs = 2_000;
const minPollIntervalMs = 250;

/** Options of a wait for a submission: `submitOrderAndWait` and `submissions.wait`. */
export interface WaitOptions {
  /** Deadline of the whole wait (the POST, its retries and every poll), in ms. @default 120000 */
  timeoutMs?: number;
  /** Aborts the wait, its requests and its sleeps; it then throws `APIUserAbortError`. */
  signal?: AbortSignal;
  /** Retries of each request of the wait, within its deadline. @default the client's `maxRetries` */
  maxRetries?: number;
  /** Headers added to each request of the wait, as a call's `headers`. */
  headers?: Record<string, string>;
  /** Called with every submission state seen, the first answer included. */
  onPoll?: (submission: Submission) => void;
}

interface Answer {
  submission: Submission;
  retryAfterSeconds: number | null;
  response: Response;
}

export function isTerminal(submission: Submission): boolean {
  return submission.status === "completed" || submission.status === "failed";
}

/** @internal What the waiter needs from the client that owns it. */
export interface WaiterConfig {
  http: Http;
  clock: Clock;
  baseUrl: URL;
  redact: (text: string) => string;
  getSubmission: (submissionId: string) => SubmissionCall;
}

type SubmissionCall = Operation<"submitOrder" | "getSubmission">;

/** @internal One deadline bounds the whole wait; `failed` is returned, not thrown (Errors rule 6). */
export class SubmissionWaiter {
  readonly #config: WaiterConfig;

  constructor(config: WaiterConfig) {
    this.#config = config;
  }

  wait(first: SubmissionCall, options: WaitOptions, submissionId?: string): APIPromise<Submission> {
    return new APIPromise(this.#traced(first, options, submissionId));
  }

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

  async #request(operation: SubmissionCall, call: CallOptions): Promise<Answer> {
    const { http, clock } = this.#config;
    const { data, response } = await http.call(operation, call).withResponse();
    return {
      submission: data,
      retryAfterSeconds: parseRetryAfter(response.headers, clock.now()),
      response,
    };
  }

  /** Credentials never leave the configured origin. */
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

export function abortedWait(submissionId: string): APIUserAbortError {
  return new APIUserAbortError(
    `The wait for submission ${submissionId} was aborted; the order was submitted. Resume with ` +
      `client.submissions.wait("${submissionId}").`,
    { submissionId },
  );
}
