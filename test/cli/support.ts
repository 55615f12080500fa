import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root; the CLI under test is the built one, `dist/cli.js`, as `npx` runs it. */
export const root = fileURLToPath(new URL("../../", import.meta.url));
export const cliPath = join(root, "dist", "cli.js");

/**
 * Fails at once when `dist/cli.js` is missing or older than a source file, instead of testing a
 * build that is not the code under review (`npm test` builds before it runs the tests).
 */
export function assertBuilt(): void {
  if (!existsSync(cliPath)) throw new Error("dist/cli.js is missing: run `npm run build` first");
  const built = statSync(cliPath).mtimeMs;
  const stale = sources(join(root, "src")).find((file) => statSync(file).mtimeMs > built);
  if (stale) throw new Error(`${stale} is newer than dist/cli.js: run \`npm run build\` first`);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI: its output so far, a way to wait for some of it, and its end. */
export interface Running {
  proc: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once `stream`'s output matches `pattern`; rejects if the process ends first. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<void>;
  done: Promise<Run>;
}

const running = new Set<ChildProcess>();

/** Kills every CLI still running (a test that failed before it could stop its own). */
export function killAll(): void {
  for (const proc of running) proc.kill("SIGKILL");
}

/** Starts the built CLI with `env` over the test's own environment. */
export function start(args: string[], env: Record<string, string | undefined> = {}): Running {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  // The tests decide on every variable the CLI reads: none leaks in from the shell that runs them.
  for (const name of Object.keys(env)) if (env[name] === undefined) delete merged[name];
  const proc = spawn(process.execPath, [cliPath, ...args], { cwd: root, env: merged });
  running.add(proc);
  proc.on("close", () => running.delete(proc));
  const output = { stdout: "", stderr: "" };
  const watchers = new Set<() => void>();
  for (const name of ["stdout", "stderr"] as const) {
    proc[name].on("data", (chunk: Buffer) => {
      output[name] += chunk.toString();
      for (const watch of watchers) watch();
    });
  }
  const done = new Promise<Run>((resolve) =>
    proc.on("close", (code, signal) => resolve({ code, signal, ...output })),
  );
  return {
    proc,
    get stdout() {
      return output.stdout;
    },
    get stderr() {
      return output.stderr;
    },
    waitFor(stream, pattern) {
      return new Promise<void>((resolve, reject) => {
        const watch = () => {
          if (!pattern.test(output[stream])) return;
          watchers.delete(watch);
          resolve();
        };
        watchers.add(watch);
        watch();
        void done.then(() => {
          watchers.delete(watch);
          reject(
            new Error(
              `the CLI ended before its ${stream} matched ${pattern}:\n${output.stdout}\n${output.stderr}`,
            ),
          );
        });
      });
    },
    done,
  };
}

/** Runs the built CLI to its end. */
export function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return start(args, env).done;
}

/** A stack trace's frame line: never part of what the CLI prints. */
export const STACK_FRAME = /^\s+at .+[(:]\d+/m;
