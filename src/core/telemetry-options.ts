/**
 * The `telemetry` client option. Typed by shape, not by `@opentelemetry/api`'s declarations: the
 * API is an optional peer, and compiling against this package never needs it.
 */

/** Where a client's traces and metrics go, when `@opentelemetry/api` is installed. */
export interface TelemetryOptions {
  /**
   * An OpenTelemetry `TracerProvider` for this client's spans. The global one is looked up at each
   * call: one registered after the client was made is used from the next call on.
   * @default the global one (`trace.getTracerProvider()`), as registered by the OpenTelemetry SDK
   */
  tracerProvider?: {
    /** The tracer of the named instrumentation scope (`partner-orders`). */
    getTracer(name: string, version?: string): unknown;
  };
  /**
   * An OpenTelemetry `MeterProvider` for this client's metrics. The global one is read when the
   * client is made: register it before.
   * @default the global one (`metrics.getMeterProvider()`)
   */
  meterProvider?: {
    /** The meter of the named instrumentation scope (`partner-orders`). */
    getMeter(name: string, version?: string): unknown;
  };
}
