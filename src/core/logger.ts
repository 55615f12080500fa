/** Anything shaped like `console` will do. */
export interface Logger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/**
 * The SDK's log lines: method, path, status, attempt and delay only. Callers pass already-safe
 * facts; no header, body, token or secret is ever handed to a logger (API.md, Safety).
 */
export interface Log {
  /** Whether a line at `level` would be written: lets hot paths skip building its fields. */
  enabled(level: Exclude<LogLevel, "off">): boolean;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLog(logger: Logger | undefined, level: LogLevel): Log {
  const threshold = rank[level] ?? rank.warn;
  const emit =
    (name: Exclude<LogLevel, "off">) => (message: string, fields?: Record<string, unknown>) => {
      if (!logger || rank[name] < threshold) return;
      const line = `[partner-orders] ${message}`;
      if (fields) logger[name](line, fields);
      else logger[name](line);
    };
  return {
    enabled: (name) => logger !== undefined && rank[name] >= threshold,
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
  };
}
