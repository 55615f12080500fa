import { PartnerOrdersError } from "./errors";
import type { TelemetrySetup, TelemetrySlot } from "./http/hooks";
import type { TelemetryOptions } from "./telemetry-options";

type Instrumentation = typeof import("./telemetry");

/**
 * The instrumentation, once per process: `@opentelemetry/api` first (an optional peer), and only
 * when it is there the module that uses it. Without it, nothing more is loaded.
 */
let loading: Promise<Instrumentation | undefined> | undefined;

function load(): Promise<Instrumentation | undefined> {
  loading ??= import("@opentelemetry/api").then(
    () => import("./telemetry"),
    () => undefined,
  );
  return loading;
}

/**
 * A client's telemetry: looked for when the client is made, and in place before its first request
 * is sent (a call made meanwhile waits for the look-up). `undefined` when `options` is `false`.
 */
export function telemetrySlot(
  options: TelemetryOptions | false | undefined,
  setup: Omit<TelemetrySetup, "options">,
): TelemetrySlot | undefined {
  if (options === false) return undefined;
  const given = options ?? {};
  const { tracerProvider: t, meterProvider: m } = given;
  if ((t && typeof t.getTracer !== "function") || (m && typeof m.getMeter !== "function")) {
    throw new PartnerOrdersError(
      "telemetry: not an OpenTelemetry TracerProvider or MeterProvider.",
    );
  }
  const slot: TelemetrySlot = { hooks: undefined, ready: undefined };
  slot.ready = load()
    .then((instrumentation) => {
      slot.hooks = instrumentation?.httpHooks({ ...setup, options: given });
    })
    // A provider that throws when asked for its tracer costs the traces, never a call.
    .catch(() => {})
    .then(() => {
      slot.ready = undefined;
    });
  // A test clock (the sandbox's runAll) waits for the look-up as for an answer in flight: a call
  // made meanwhile waits for it before it starts any timer.
  setup.clock.track?.(slot.ready);
  return slot;
}
