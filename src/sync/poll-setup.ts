import type { Log } from "../core/logger";
import type { Clock } from "../internal/clock";
import { positive } from "./checks";
import type { MirrorContext } from "./context";
import { MirrorError } from "./errors";
import { PollPolicy } from "./poll-policy";
import type { PollPolicyName } from "./poll-types";
import type { MirrorStatus, MirrorStore, OrderMirrorOptions } from "./types";
import { assess, HEALTH_KEYS, parseEvents, parseMiss } from "./webhook-health";

const POLICIES: readonly PollPolicyName[] = ["adaptive", "fixed"];

/** The poll policy `options` ask for, checked: a clear `MirrorError` for a bad one. */
export function policyFor(
  options: Pick<OrderMirrorOptions, "maxOpenOrderIntervalMs" | "pollPolicy">,
  deps: { store: MirrorStore; clock: Clock; log: Log; openIntervalMs: number },
): PollPolicy {
  const mode = options.pollPolicy ?? "adaptive";
  if (!POLICIES.includes(mode)) {
    throw new MirrorError(
      "invalid_argument",
      `pollPolicy must be "adaptive" or "fixed", not ${JSON.stringify(mode)?.slice(0, 40) ?? String(mode)}.`,
    );
  }
  const maxIntervalMs = positive(
    options.maxOpenOrderIntervalMs ?? Math.max(3_600_000, deps.openIntervalMs),
    "maxOpenOrderIntervalMs",
  );
  if (maxIntervalMs < deps.openIntervalMs) {
    throw new MirrorError(
      "invalid_argument",
      `maxOpenOrderIntervalMs (${maxIntervalMs}) must be at least openOrderIntervalMs (${deps.openIntervalMs}).`,
    );
  }
  return new PollPolicy({ ...deps, mode, maxIntervalMs });
}

/**
 * What `status()` says of polling, from the store's records (every process's webhooks and
 * findings), as of now.
 */
export async function healthStatus(
  ctx: MirrorContext,
): Promise<Pick<MirrorStatus, "webhookHealth" | "pollIntervalMs" | "pollPolicy">> {
  const { store, clock, policy, openIntervalMs } = ctx;
  const [events, miss] = await Promise.all([
    store.getCheckpoint(HEALTH_KEYS.events),
    store.getCheckpoint(HEALTH_KEYS.miss),
  ]);
  const webhookHealth = assess(parseEvents(events), parseMiss(miss), clock.now(), {
    openIntervalMs,
    maxIntervalMs: policy.maxIntervalMs,
  });
  const relaxed = policy.mode === "adaptive" && webhookHealth.state === "healthy";
  return {
    webhookHealth,
    pollIntervalMs: relaxed ? policy.maxIntervalMs : openIntervalMs,
    pollPolicy: policy.mode,
  };
}
