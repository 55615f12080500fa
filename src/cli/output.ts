/** Where the command line writes: data on stdout, progress and diagnostics on stderr. */

import type { Logger } from "../core/logger";

/** The part of a stream the output writes to; `columns` is set on a terminal. */
export interface Sink {
  write(text: string): unknown;
  on?(event: "error", listener: (error: Error & { code?: string }) => void): unknown;
  columns?: number;
}

export interface OutputOptions {
  /** JSON on stdout instead of text. */
  json: boolean;
  stdout: Sink;
  stderr: Sink;
  /** Whether stderr is a terminal: progress lines are drawn only there. */
  tty: boolean;
}

/**
 * The command line's one writer. Output to a reader that went away (`| head -1`) ends quietly:
 * `closed` aborts and every later write is dropped, so the command can stop instead of crashing.
 */
export class Output {
  readonly json: boolean;
  readonly tty: boolean;
  readonly #stdout: Sink;
  readonly #stderr: Sink;
  readonly #closed = new AbortController();
  /** A progress line is on the terminal: any other line must erase it first. */
  #progressShown = false;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.tty = options.tty;
    this.#stdout = options.stdout;
    this.#stderr = options.stderr;
    for (const stream of [options.stdout, options.stderr]) {
      // EPIPE: the reader closed the pipe. Any other write error (a full disk) is no better served
      // by a crash: the output is gone either way, and the command stops the same way.
      stream.on?.("error", () => this.#closed.abort());
    }
  }

  /** Aborts when stdout or stderr can no longer be written. */
  get closed(): AbortSignal {
    return this.#closed.signal;
  }

  /** One value: an indented JSON document, or `key: value` lines. */
  one(value: unknown): void {
    this.#out(this.json ? JSON.stringify(value, null, 2) : text(value));
  }

  /** One value of a stream: a JSON line, or its `key: value` pairs on one line. */
  line(value: unknown): void {
    this.#out(this.json ? JSON.stringify(value) : text(value).replaceAll("\n", "  "));
  }

  /** Text as it is, on stdout. */
  text(lines: string): void {
    this.#out(lines);
  }

  /** Text as it is, on stderr (the usage text after a usage error). */
  diagnostic(lines: string): void {
    this.#err(lines);
  }

  /**
   * What a long-running command is doing (it started, a pass finished): stdout in text mode, where
   * it is the output; stderr with --json, where stdout carries only JSON.
   */
  info(line: string): void {
    if (this.json) this.#err(line);
    else this.#out(line);
  }

  /** One line, rewritten in place, on a terminal only: piped output stays data. */
  progress(line: string): void {
    if (!this.tty || this.#closed.signal.aborted) return;
    // A line longer than the terminal wraps, and "\r" then rewrites only its last row.
    const width = this.#stderr.columns;
    const shown = width && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
    this.#stderr.write(`\r\x1b[2K${shown}`);
    this.#progressShown = true;
  }

  /** A warning or a note on stderr: `warning: message key=value ...`, or a JSON line with --json. */
  notice(
    level: "debug" | "info" | "warning" | "error",
    message: string,
    fields: Record<string, unknown> = {},
  ): void {
    if (this.json) this.#err(JSON.stringify({ [level]: message, ...fields }));
    else this.#err(`${level}: ${message}${formatFields(fields)}`);
  }

  /**
   * An error that ends the command: `error (code): message`, then the hint on its own line; one
   * JSON line with --json.
   */
  error(
    code: string | undefined,
    message: string,
    hint: string | undefined,
    fields: Record<string, unknown> = {},
  ): void {
    if (this.json) this.#err(JSON.stringify({ error: message, code, ...fields, hint }));
    else this.#err(`error${code ? ` (${code})` : ""}: ${message}${hint ? `\nhint: ${hint}` : ""}`);
  }

  /** Erases a progress line left on the terminal. */
  endProgress(): void {
    if (!this.#progressShown) return;
    this.#progressShown = false;
    if (!this.#closed.signal.aborted) this.#stderr.write("\r\x1b[2K");
  }

  #out(line: string): void {
    this.endProgress();
    if (!this.#closed.signal.aborted) this.#stdout.write(`${line}\n`);
  }

  #err(line: string): void {
    this.endProgress();
    if (!this.#closed.signal.aborted) this.#stderr.write(`${line}\n`);
  }
}

/** `key: value` lines; nested values as JSON (money is already decimal text there). */
export function text(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  return Object.entries(JSON.parse(JSON.stringify(value)) as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
    .join("\n");
}

/** ` key=value key="two words"`: fields of a log line, values quoted when they need it. */
export function formatFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(
      ([k, v]) => ` ${k}=${typeof v === "string" && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`,
    )
    .join("");
}

/**
 * The SDK's log lines on stderr, one per line: `warning: message key=value ...`. Levels are chosen
 * by the client and the mirror; every line they hand over is written.
 */
export function cliLogger(out: Output): Logger {
  const write =
    (level: "debug" | "info" | "warning" | "error") =>
    (message: string, ...rest: unknown[]) => {
      const fields: Record<string, unknown> = {};
      for (const value of rest) {
        if (value && typeof value === "object" && !(value instanceof Error)) {
          for (const [k, v] of Object.entries(value)) {
            fields[k] = v instanceof Error ? v.message : v;
          }
        } else if (value !== undefined) {
          fields.detail = value instanceof Error ? value.message : value;
        }
      }
      out.notice(level, message.replace(/^\[partner-orders\] /, ""), fields);
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warning"),
    error: write("error"),
  };
}
