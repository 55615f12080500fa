/** Anything shaped like `console` will do. */
export interface Logger {
  /** Each HTTP attempt: method, path, status. */
  debug(message: string, ...rest: unknown[]): void;
  /** Retries with their delays, and a shipments page asked for again with a smaller `limit`. */
  info(message: string, ...rest: unknown[]): void;
  /** A client certificate close to its expiry (the service sends no notice). */
  warn(message: string, ...rest: unknown[]): void;
  /** Part of the `console` shape; failures themselves are thrown, not logged. */
  error(message: string, ...rest: unknown[]): void;
}

/** The least severe level a {@link Logger} receives; `"off"` writes nothing. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/** Callers pass already-safe facts: never a header, body, token or secret. */
export interface Log {
  /** Lets hot paths skip building a line's fields. */
  enabled(level: Exclude<LogLevel, "off">): boolean;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ClientLog extends Log {
  readonly logger: Logger | undefined;
  readonly level: LogLevel;
}

export function createLog(logger: Logger | undefined, level: LogLevel | undefined): ClientLog {
  // An own property only: "constructor" is no level.
  const effective: LogLevel = Object.hasOwn(rank, String(level)) ? (level as LogLevel) : "warn";
  const threshold = rank[effective];
  const emit =
    (name: Exclude<LogLevel, "off">) => (message: string, fields?: Record<string, unknown>) => {
      if (!logger || rank[name] < threshold) return;
      const line = `[partner-orders] ${message}`;
      if (fields) logger[name](line, fields);
      else logger[name](line);
    };
  return {
    logger,
    level: effective,
    enabled: (name) => logger !== undefined && rank[name] >= threshold,
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
  };
}

// An unknown PARTNER_ORDERS_LOG is ignored with a warning: a logging typo must not stop a service.
export function resolveLog(
  logger: Logger | undefined,
  logLevel: LogLevel | undefined,
  envLevel: string | undefined,
): ClientLog {
  if (logLevel !== undefined || envLevel === undefined) return createLog(logger, logLevel);
  const wanted = envLevel.trim().toLowerCase() as LogLevel;
  const log = createLog(logger ?? console, wanted);
  if (log.level !== wanted) {
    log.warn(
      `PARTNER_ORDERS_LOG=${JSON.stringify(envLevel.slice(0, 40))} is not one of ${Object.keys(rank).join(", ")}; ignored, "warn" applies.`,
    );
  }
  return log;
}
