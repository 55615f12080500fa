import type { Clock } from "../internal/clock";
import { APITimeoutError, APIUserAbortError, SubmissionTimeoutError } from "./errors";
import type { Submission } from "./models";

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

export interface Answer {
  submission: Submission;
  /** Seconds the service asked to wait before the next poll, when it said. */
  retryAfterSeconds: number | null;
  /** The HTTP response the submission came from, for `.withResponse()`. */
  response: Response;
}

export function isTerminal(submission: Submission): boolean {
  return submission.status === "completed" || submission.status === "failed";
}

/**
 * The one poller (STYLE.md): from a first answer, sleeps what `Retry-After` says and asks again
 * until the submission is `completed` or `failed`. A sleep or a request that would pass the
 * deadline is not started: the wait ends with {@link SubmissionTimeoutError} carrying the last state.
 * `failed` is returned, not thrown (API document, Errors rule 6). Resolves with the terminal answer.
 */
export async function pollSubmission(args: {
  first: Answer;
  poll: (deadline: number) => Promise<Answer>;
  deadline: number;
  startedAt: number;
  clock: Clock;
  signal?: AbortSignal;
  onPoll?: (submission: Submission) => void;
}): Promise<Answer> {
  const { poll, deadline, startedAt, clock, signal, onPoll } = args;
  let answer = args.first;
  for (;;) {
    const { submission } = answer;
    if (isTerminal(submission)) return answer;
    const waitMs = Math.max(
      minPollIntervalMs,
      answer.retryAfterSeconds === null ? defaultPollIntervalMs : answer.retryAfterSeconds * 1000,
    );
    const timeout = () =>
      new SubmissionTimeoutError(
        submission.submissionId,
        submission,
        Math.round(clock.monotonic() - startedAt),
      );
    if (clock.monotonic() + waitMs >= deadline) throw timeout();
    try {
      await clock.sleep(waitMs, signal);
    } catch {
      throw abortedWait(submission.submissionId);
    }
    try {
      answer = await poll(deadline);
    } catch (error) {
      // Within a bounded wait, running out of time on a poll is the wait's timeout.
      if (error instanceof APITimeoutError) throw timeout();
      if (error instanceof APIUserAbortError) throw abortedWait(submission.submissionId);
      throw error;
    }
    onPoll?.(answer.submission);
  }
}

/**
 * The abort of a wait on a known submission: the order exists, so the error names it and says how
 * to resume (API.md: an aborted call throws APIUserAbortError).
 */
export function abortedWait(submissionId: string): APIUserAbortError {
  return new APIUserAbortError(
    `The wait for submission ${submissionId} was aborted; the order was submitted. Resume with ` +
      `client.submissions.wait("${submissionId}").`,
    { submissionId },
  );
}
