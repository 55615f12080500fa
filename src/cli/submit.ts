import { readFileSync } from "node:fs";
import type { PartnerOrders } from "../client";
import { SubmissionTimeoutError } from "../core/errors";
import type { OrderRequest, Submission } from "../core/models";
import { duration, UsageError, type Values } from "./args";
import type { Output } from "./output";

/** `submit order.json [--wait]`: validated before anything is sent, then submitted. */
export async function submit(
  client: PartnerOrders,
  file: string,
  values: Values,
  out: Output,
): Promise<number> {
  let request: OrderRequest;
  try {
    request = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(
      `cannot read ${file} as JSON: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (!values.wait) {
    const { submission, created } = await client.orders.submit(request);
    out.one({ ...submission, created });
    return submission.status === "failed" ? 1 : 0;
  }
  const submission = await waitFor(
    () =>
      client.submitOrderAndWait(request, {
        timeoutMs: duration(values.timeout),
        onPoll: (s) => out.progress(`submission ${s.submissionId}: ${s.status}`),
      }),
    out,
  );
  return finished(submission, out);
}

/** `submissions wait ID`. */
export async function waitForSubmission(
  client: PartnerOrders,
  id: string,
  values: Values,
  out: Output,
): Promise<number> {
  const submission = await waitFor(
    () => client.submissions.wait(id, { timeoutMs: duration(values.timeout) }),
    out,
  );
  return finished(submission, out);
}

/** A wait that times out says how to go on instead of failing bare. */
async function waitFor(
  wait: () => Promise<Submission>,
  out: Output,
): Promise<Submission | undefined> {
  try {
    return await wait();
  } catch (error) {
    if (!(error instanceof SubmissionTimeoutError)) throw error;
    const id = error.submissionId;
    if (id) {
      out.error(
        "submission_timeout",
        `still ${error.submission?.status ?? "unanswered"} at the deadline; resume with:\n  partner-orders submissions wait ${id}`,
        undefined,
        { submissionId: id },
      );
    } else {
      // The deadline came before the service answered the POST: there is no id to resume with, and
      // the order may exist. The service keys orders by partnerOrderId, so sending the same body
      // again finds it instead of creating another.
      out.error(
        "submission_timeout",
        "no submission id was received before the deadline, so the order may or may not exist",
        "re-running the same command with the same file is safe: the same partnerOrderId and body never create a second order",
        { submissionId: null },
      );
    }
    return undefined;
  }
}

/** `completed` exits 0, `failed` 1 (with its errors), a timeout 3. */
function finished(submission: Submission | undefined, out: Output): number {
  if (!submission) return 3;
  out.one(submission);
  return submission.status === "completed" ? 0 : 1;
}
