/**
 * Traces and metrics through `@opentelemetry/api`, loaded by core/telemetry-load.ts only when the
 * API is installed. A span per call, `partner-orders <operationId>`, a child of the caller's
 * active span; under it a span per HTTP attempt named and attributed by the stable HTTP client
 * semantic conventions, with W3C `traceparent` sent; `http.client.request.duration` per attempt.
 * No attribute carries a secret: no header, no body, no token, and `url.full` has its credentials
 * and signature-like query values blanked.
 */
import {
  type Attributes,
  type Context,
  context,
  createNoopMeter,
  isSpanContextValid,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  PartnerOrdersError,
} from "./errors";
import type { AttemptObserver, HttpHooks, Outgoing, TelemetrySetup } from "./http/hooks";
import { sdkVersion } from "./user-agent";

/** The instrumentation scope of every span and instrument. */
export const scopeName = "partner-orders";

/** The semantic conventions' advice for `http.client.request.duration`, in seconds. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Query parameters whose values are blanked in `url.full` (as the conventions ask for signatures). */
const secretQuery = /token|secret|sig|key|password|auth|credential|code/i;

/** The API's no-op provider: what a ProxyTracerProvider delegates to until an SDK registers one. */
const noopProvider = new ProxyTracerProvider().getDelegate();

/**
 * `error.type` of a failure: the problem's `code` (else the status) for an answer, `timeout`,
 * `connection` or `aborted` for none, the error's class for anything else. Server text is bounded:
 * a hostile code cannot make an attribute of a megabyte.
 */
export function errorType(error: unknown): string {
  if (error instanceof APIError) return (error.code ?? String(error.status)).slice(0, 100);
  if (error instanceof APITimeoutError) return "timeout";
  if (error instanceof APIConnectionError) return "connection";
  if (error instanceof APIUserAbortError) return "aborted";
  if (error instanceof PartnerOrdersError) return error.name;
  return "_OTHER";
}

/** `url` as `url.full` may show it: no user or password, signature-like query values blanked. */
export function safeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "";
  }
  if (parsed.username) parsed.username = "REDACTED";
  if (parsed.password) parsed.password = "REDACTED";
  for (const name of [...parsed.searchParams.keys()]) {
    if (secretQuery.test(name)) parsed.searchParams.set(name, "REDACTED");
  }
  return parsed.href;
}

/** The instrumentation of one client (and the clients `withOptions()` makes from it). */
export function httpHooks(setup: TelemetrySetup): HttpHooks {
  const { options, clock, baseUrl, budget } = setup;
  const given = options.tracerProvider as TracerProvider | undefined;
  // Looked up per call: the SDK may register the global provider after the client was made.
  const delegate = (): TracerProvider => {
    const provider = given ?? trace.getTracerProvider();
    return provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  };
  let tracerOf = delegate();
  // Asked once here: a provider that throws for its tracer costs the traces (telemetry-load.ts).
  let tracer: Tracer = tracerOf.getTracer(scopeName, sdkVersion);
  const currentTracer = (): Tracer => {
    const provider = delegate();
    if (provider !== tracerOf) {
      tracerOf = provider;
      try {
        tracer = provider.getTracer(scopeName, sdkVersion);
      } catch {
        tracer = noopProvider.getTracer(scopeName, sdkVersion);
      }
    }
    return tracer;
  };
  const meter: Meter = (
    (options.meterProvider as MeterProvider | undefined) ?? metrics.getMeterProvider()
  ).getMeter(scopeName, sdkVersion);
  const metered = meter !== createNoopMeter();
  const port = Number(baseUrl.port || (baseUrl.protocol === "http:" ? 80 : 443));
  const server: Attributes = { "server.address": baseUrl.hostname, "server.port": port };
  const duration = meter.createHistogram("http.client.request.duration", {
    unit: "s",
    description: "Duration of HTTP client requests: each attempt, retries included.",
    advice: { explicitBucketBoundaries: durationBuckets },
  });
  const retries = meter.createCounter("partner_orders.client.retries", {
    unit: "{retry}",
    description: "Retries made, by the error.type of the attempt that failed.",
  });
  const mints = meter.createCounter("partner_orders.client.token.mints", {
    unit: "{token}",
    description: "Access token requests made (client credentials), by outcome.",
  });
  if (metered && budget) observeBudget(meter, budget, server);

  /** No meter, the no-op tracer and no valid span context active: a call now runs untraced. */
  const idle = (): boolean => {
    if (metered || delegate() !== noopProvider) return false;
    const span = trace.getSpan(context.active());
    return span === undefined || !isSpanContextValid(span.spanContext());
  };

  /** `span` records nothing and carries no trace: a provider given may hand out no-op tracers. */
  const quiet = (span: Span) =>
    !metered && !span.isRecording() && !isSpanContextValid(span.spanContext());

  /** Ends `span` with `type` as its error, or as a success. */
  const finish = (span: Span, type: string | undefined) => {
    if (type !== undefined) {
      span.setAttribute("error.type", type);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  /** The attempts of one call, under `parent` (the call's span). */
  const attempts = (parent: Context): AttemptObserver => {
    let lastError: string | undefined;
    return async (n, request, seen, send) => {
      const method = request.method;
      const started = clock.monotonic();
      const span = currentTracer().startSpan(method, { kind: SpanKind.CLIENT }, parent);
      if (quiet(span)) return send();
      if (span.isRecording()) {
        span.setAttributes({
          "http.request.method": method,
          ...server,
          "url.full": safeUrl(request.url),
          ...(n > 1 ? { "http.request.resend_count": n - 1 } : {}),
        });
      }
      const active = trace.setSpan(parent, span);
      propagation.inject(active, request.headers);
      if (metered && n > 1) {
        retries.add(1, { "http.request.method": method, ...server, "error.type": lastError });
      }
      let type: string | undefined;
      try {
        return await context.with(active, send);
      } catch (error) {
        type = errorType(error);
        lastError = type;
        throw error;
      } finally {
        const status = seen.status;
        if (status !== undefined) span.setAttribute("http.response.status_code", status);
        finish(span, type);
        if (metered) {
          duration.record((clock.monotonic() - started) / 1000, {
            "http.request.method": method,
            ...server,
            ...(status === undefined ? {} : { "http.response.status_code": status }),
            ...(type === undefined ? {} : { "error.type": type }),
          });
        }
      }
    };
  };

  /** Runs `run` under a new span `name`, a child of the active span; `run` gets its context. */
  const within = async <T>(
    name: string,
    attributes: Attributes | undefined,
    run: (active: Context, span: Span) => Promise<T>,
  ): Promise<T> => {
    const parent = context.active();
    const span = currentTracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
    if (quiet(span)) return run(parent, span);
    const active = trace.setSpan(parent, span);
    let type: string | undefined;
    try {
      return await context.with(active, run, undefined, active, span);
    } catch (error) {
      type = errorType(error);
      throw error;
    } finally {
      finish(span, type);
    }
  };

  /** The call under its span, with the token mints counted. */
  const traced = async <T>(
    request: Outgoing,
    run: (attempt: AttemptObserver | undefined) => Promise<T>,
  ): Promise<T> => {
    const token = request.operation === "createToken";
    try {
      const result = await within(
        `partner-orders ${request.operation ?? request.method}`,
        undefined,
        (active) => run(attempts(active)),
      );
      if (token && metered) mints.add(1, server);
      return result;
    } catch (error) {
      if (token && metered) mints.add(1, { ...server, "error.type": errorType(error) });
      throw error;
    }
  };

  return {
    meter,
    metered,
    idle,
    request: (request, run) => (idle() ? run(undefined) : traced(request, run)),
    wait(name, options, run) {
      if (idle()) return run(options);
      return within(`partner-orders ${name}`, undefined, (_, span) =>
        run({
          ...options,
          onPoll: (submission) => {
            if (span.isRecording()) {
              span.setAttribute("partner_orders.submission.id", submission.submissionId);
              span.addEvent("poll", { "partner_orders.submission.status": submission.status });
            }
            options.onPoll?.(submission);
          },
        }),
      );
    },
    span(name, attributes, run, after) {
      if (idle()) return run();
      return within(`partner-orders ${name}`, attributes, async (_, span) => {
        const result = await run();
        if (after && span.isRecording()) span.setAttributes(after(result));
        return result;
      });
    },
  };
}

/** Tells the budgets of a process apart (clients made by `withOptions()` share their parent's). */
let budgets = 0;

/**
 * The retry budget's tokens as a gauge, one series per budget (`partner_orders.retry_budget.id`),
 * for as long as the budget lives: the meter holds the callback, the callback only a weak
 * reference, so a client dropped is not kept alive by it and its series ends.
 */
function observeBudget(meter: Meter, budget: object & { tokens: number }, server: Attributes) {
  const attributes = { ...server, "partner_orders.retry_budget.id": ++budgets };
  const gauge = meter.createObservableGauge("partner_orders.client.retry_budget.tokens", {
    unit: "{token}",
    description: "Tokens left in the client's retry budget.",
  });
  const ref = new WeakRef(budget);
  const callback = (result: { observe(value: number, attributes?: Attributes): void }) => {
    const live = ref.deref();
    if (live) result.observe(live.tokens, attributes);
    else gauge.removeCallback(callback);
  };
  gauge.addCallback(callback);
}
