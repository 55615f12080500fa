import type { PartnerOrders } from "../../../src/client";
import { APIError, ResponseDecodeError } from "../../../src/core/errors";
import type { Log } from "../../../src/core/logger";
import type { Clock } from "../../../src/internal/clock";
import { Counters, InvalidOrders, type MirrorContext } from "../../../src/sync/context";
import { PollPolicy } from "../../../src/sync/poll-policy";
import type { MirrorStore } from "../../../src/sync/types";

/** A clock whose time moves only when a test says so; each sleep is recorded and resolves at once. */
export class TestClock implements Clock {
  wall = 1_772_366_400_000; // 2026-03-01T12:00:00.000Z
  mono = 5_000;
  readonly sleeps: number[] = [];
  /** Set to make the next sleeps reject (an aborted wait). */
  sleepRejects = false;
  now(): number {
    return this.wall;
  }
  monotonic(): number {
    return this.mono;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (this.sleepRejects || signal?.aborted) return Promise.reject(new Error("aborted"));
    return Promise.resolve();
  }
}

export interface Logged {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

export function testLog(lines: Logged[]): Log {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return {
    enabled: () => true,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
}

export interface Warned {
  message: string;
  error: unknown;
  next: string;
}

export interface TestContext extends MirrorContext {
  clock: TestClock;
  warnings: Warned[];
  logged: Logged[];
  changedCalls: number;
}

/** A hand-built MirrorContext on `store` and `client`, recording warnings, logs and changed(). */
export function testContext(
  store: MirrorStore,
  client: unknown = {},
  extra: Partial<MirrorContext> = {},
): TestContext {
  const clock = new TestClock();
  const logged: Logged[] = [];
  const log = testLog(logged);
  const ctx: TestContext = {
    client: client as PartnerOrders,
    store,
    clock,
    log,
    holder: "host/1/a",
    siteIds: [undefined],
    sweepIntervalMs: 60_000,
    openIntervalMs: 300_000,
    leaseMs: 30_000,
    concurrency: 2,
    report: new Counters(clock),
    invalid: new InvalidOrders(store),
    policy: new PollPolicy({
      store,
      clock,
      log,
      mode: "adaptive",
      openIntervalMs: 300_000,
      maxIntervalMs: 3_600_000,
    }),
    warnings: [],
    logged,
    changedCalls: 0,
    changed() {
      ctx.changedCalls++;
    },
    warn(message, error, next) {
      ctx.warnings.push({ message, error, next });
    },
    ...extra,
  } as TestContext;
  return ctx;
}

/** An API error with a problem code, as the client throws for a 4xx answer. */
export function problem(status: number, code: string, path = "/v1/orders/100001"): APIError {
  return new APIError({
    status,
    method: "GET",
    path,
    headers: new Headers(),
    problem: { type: "about:blank", title: code, status, code, detail: code } as never,
  });
}

/** A decode error for `path`, as the client throws for a row it cannot read. */
export function decodeError(path = "orders[].totals.order", reason = "not a decimal") {
  return new ResponseDecodeError("cannot decode", { operationId: "getOrder", path, reason });
}
