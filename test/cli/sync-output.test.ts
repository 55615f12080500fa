import { PartnerOrders } from "partner-orders";
import { MirrorError, SweepHeldError } from "partner-orders/sync";
import { createSandbox, FIXTURES, SANDBOX_BASE_URL } from "partner-orders/testing";
import { describe, expect, it } from "vitest";
import { report } from "../../src/cli/main";
import { type Mirror, syncWith } from "../../src/cli/mirror";
import { cliLogger, Output } from "../../src/cli/output";
import type { ResyncOptions } from "../../src/sync/resync";
import type {
  Change,
  MirrorStatus,
  RunOptions,
  SyncOptions,
  SyncReport,
} from "../../src/sync/types";
import { rejection } from "../support/client";

/**
 * What `sync` prints around the mirror, driven by a scripted mirror: progress, passes and errors
 * as the mirror reports them through `onProgress`, `onPass` and its rejections. (The built CLI
 * against a real mirror: sync.test.ts.)
 */

const ERASE = "\r\x1b[2K";

function sink(columns?: number) {
  return {
    text: "",
    columns,
    write(chunk: string) {
      this.text += chunk;
      return true;
    },
  };
}

function output(options: { json?: boolean; tty?: boolean; columns?: number } = {}) {
  const stdout = sink();
  const stderr = sink(options.columns);
  const out = new Output({
    json: options.json ?? false,
    tty: options.tty ?? false,
    stdout,
    stderr,
  });
  return { out, stdout, stderr };
}

const reportOf = (fields: Partial<SyncReport> = {}): SyncReport => ({
  ordersSeen: 10,
  ordersAdded: 2,
  ordersChanged: 1,
  itemsReread: 3,
  shipmentsReread: 3,
  changesWritten: 4,
  requests: 17,
  invalidOrders: [],
  durationMs: 1_500,
  ...fields,
});

const change = (id: number): Change => ({
  id,
  type: "order.unresolvable",
  orderNumber: 100_000 + id,
  siteId: 101,
  observedAt: "2024-05-01T10:00:00.000Z",
  snapshot: false,
  cause: "sweep",
});

/** A mirror that does what the test script says, and records what was asked of it. */
class ScriptedMirror implements Mirror {
  closed = 0;
  /** Changes the stream yields, as they are pushed. */
  readonly #queue: Change[] = [];
  #wake: (() => void) | undefined;

  constructor(
    readonly script: {
      sync?: (options: SyncOptions) => Promise<SyncReport>;
      resync?: (options: ResyncOptions) => Promise<SyncReport>;
      run?: (options: RunOptions) => Promise<void>;
      changesFail?: Error;
    },
  ) {}

  push(...changes: Change[]): void {
    this.#queue.push(...changes);
    this.#wake?.();
  }

  sync(options: SyncOptions = {}): Promise<SyncReport> {
    return this.script.sync?.(options) ?? Promise.resolve(reportOf());
  }

  resync(options: ResyncOptions = {}): Promise<SyncReport> {
    if (!this.script.resync) throw new Error("resync was not expected");
    return this.script.resync(options);
  }

  run(options: RunOptions = {}): Promise<void> {
    return this.script.run?.(options) ?? Promise.resolve();
  }

  async *changes(options: { signal?: AbortSignal } = {}): AsyncGenerator<Change> {
    if (this.script.changesFail) throw this.script.changesFail;
    while (!options.signal?.aborted) {
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        options.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }

  status(): Promise<MirrorStatus> {
    throw new Error("not used here");
  }

  async close(): Promise<void> {
    this.closed++;
  }
}

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });

const start = "mirroring every granted site into orders.db (SQLite)";
const at = new Date("2024-05-01T10:00:05.123Z");

describe("sync until stopped", () => {
  it("on a terminal: progress as one line rewritten on stderr, erased before each pass's line", async () => {
    const stop = new AbortController();
    const mirror = new ScriptedMirror({
      run: async ({ onProgress, onPass, signal }) => {
        onProgress?.({ pages: 1, orders: 200, requests: 3, ratePerSecond: 12.25 });
        onProgress?.({ pages: 2, orders: 1_400, requests: 9, ratePerSecond: 20 });
        onPass?.(reportOf());
        onProgress?.({ pages: 1, orders: 200, requests: 2, ratePerSecond: 5 });
        stop.abort();
        await aborted(signal);
      },
    });
    const { out, stdout, stderr } = output({ tty: true });
    const code = await syncWith(
      mirror,
      { once: false, signal: stop.signal, start, now: () => at },
      out,
    );
    expect(code).toBe(0);
    expect(stderr.text).toBe(
      `${ERASE}syncing: 1 page, 200 orders, 3 requests, 12.3/s` +
        `${ERASE}syncing: 2 pages, 1,400 orders, 9 requests, 20.0/s` +
        ERASE +
        `${ERASE}syncing: 1 page, 200 orders, 2 requests, 5.0/s` +
        ERASE,
    );
    expect(stdout.text).toBe(
      `${start}\n` +
        "2024-05-01T10:00:05Z pass 1: 10 orders seen, 2 added, 1 changed; items of 3 orders and shipments of 3 orders re-read; 4 changes, 17 requests in 1.5 s\n" +
        "stopped after 1 pass: 4 changes, 17 requests in 1.5 s\n",
    );
    expect(mirror.closed).toBe(1);
  });

  it("not on a terminal: no progress at all, the passes still", async () => {
    const stop = new AbortController();
    const mirror = new ScriptedMirror({
      run: async ({ onProgress, onPass, signal }) => {
        onProgress?.({ pages: 1, orders: 200, requests: 3, ratePerSecond: 12 });
        onPass?.(reportOf());
        onPass?.(
          reportOf({
            invalidOrders: [
              { orderNumber: 100_123, field: "totals.order", reason: "not a decimal", at: "x" },
              { orderNumber: null, field: "orderNumber", reason: "missing", at: "x" },
            ],
          }),
        );
        stop.abort();
        await aborted(signal);
      },
    });
    const { out, stdout, stderr } = output({ tty: false });
    await syncWith(mirror, { once: false, signal: stop.signal, start, now: () => at }, out);
    expect(stderr.text).toBe("");
    const lines = stdout.text.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(
      /^2024-05-01T10:00:05Z pass 2: .*; 2 invalid orders: 100123 totals\.order: not a decimal; \? orderNumber: missing$/,
    );
    expect(lines[3]).toBe("stopped after 2 passes: 8 changes, 34 requests in 3.0 s");
  });

  it("a progress line never wraps: it is cut to the terminal's width", async () => {
    const { out, stderr } = output({ tty: true, columns: 20 });
    out.progress("syncing: 12 pages, 2,400 orders, 310 requests");
    expect(stderr.text).toBe(`${ERASE}syncing: 12 pages,…`);
  });

  it("with --json: changes as they come, pass lines on stderr, the totals as the last stdout line", async () => {
    const stop = new AbortController();
    const mirror: ScriptedMirror = new ScriptedMirror({
      run: async ({ onPass, signal }) => {
        mirror.push(change(1), change(2));
        onPass?.(reportOf({ changesWritten: 2 }));
        mirror.push(change(3));
        onPass?.(reportOf({ changesWritten: 1, invalidOrders: [] }));
        // Stopped once the three changes are out.
        while (!/"id":3/.test(stdout.text)) await new Promise((r) => setImmediate(r));
        stop.abort();
        await aborted(signal);
      },
    });
    const { out, stdout, stderr } = output({ json: true });
    await syncWith(mirror, { once: false, signal: stop.signal, start, now: () => at }, out);
    const lines = stdout.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, 3).map((c) => c.id)).toEqual([1, 2, 3]);
    expect(lines[3]).toEqual({
      type: "sync.summary",
      passes: 2,
      ordersSeen: 20,
      ordersAdded: 4,
      ordersChanged: 2,
      itemsReread: 6,
      shipmentsReread: 6,
      changesWritten: 3,
      requests: 34,
      invalidOrders: [],
      durationMs: 3_000,
    });
    expect(lines).toHaveLength(4);
    const narrative = stderr.text.trimEnd().split("\n");
    expect(narrative[0]).toBe(start);
    expect(narrative.slice(1).map((l) => l.replace(/:.*/, ""))).toEqual([
      "2024-05-01T10",
      "2024-05-01T10",
    ]);
  });

  it("an error that ends the run: the mirror is closed, the totals printed, then code and hint (exit 1)", async () => {
    const sandbox = createSandbox();
    sandbox.admin.setCapabilities(FIXTURES.partnerId, ["partner-api/sites:read"]);
    const client = new PartnerOrders({
      baseUrl: SANDBOX_BASE_URL,
      fetch: sandbox.fetch,
      ...sandbox.credentials,
    });
    const refused = await rejection(client.orders.list().toArray());
    await sandbox.close();
    const mirror = new ScriptedMirror({
      run: async ({ onPass }) => {
        onPass?.(reportOf());
        throw refused;
      },
    });
    const { out, stdout, stderr } = output({ json: true });
    const error = await rejection(
      syncWith(mirror, { once: false, signal: new AbortController().signal, start }, out),
    );
    expect(error).toBe(refused);
    expect(mirror.closed).toBe(1);
    expect(JSON.parse(stdout.text)).toMatchObject({ type: "sync.summary", passes: 1 });
    expect(report(error, out)).toBe(1);
    const printed = JSON.parse(stderr.text.trimEnd().split("\n").at(-1) as string);
    expect(printed).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect(printed.hint).toContain("orders:read");

    const text = output();
    expect(report(error, text.out)).toBe(1);
    const [line, hint, ...more] = text.stderr.text.trimEnd().split("\n");
    expect(line).toMatch(/^error \(insufficient_scope\): GET \/v1\/orders failed with 403/);
    expect(hint).toMatch(/^hint: the credential lacks the scope .*orders:read/);
    expect(more).toEqual([]);
  });

  it("a change stream that fails stops the run and is reported once the mirror is closed", async () => {
    const broken = new MirrorError("store_unavailable", "the database went away");
    const mirror = new ScriptedMirror({
      changesFail: broken,
      run: ({ signal }) => aborted(signal),
    });
    const { out } = output({ json: true });
    const error = await rejection(
      syncWith(mirror, { once: false, signal: new AbortController().signal, start }, out),
    );
    expect(error).toBe(broken);
    expect(mirror.closed).toBe(1);
  });
});

describe("sync --full", () => {
  it("--once: the resync is the pass, its progress drawn on a terminal, then its report", async () => {
    const asked: string[] = [];
    const mirror = new ScriptedMirror({
      sync: async () => {
        asked.push("sync");
        return reportOf();
      },
      resync: async ({ onProgress, signal }) => {
        asked.push(`resync ${signal instanceof AbortSignal}`);
        onProgress?.({ pages: 3, orders: 600, requests: 1_203, ratePerSecond: 40 });
        return reportOf({ changesWritten: 7 });
      },
    });
    const { out, stdout, stderr } = output({ tty: true });
    const code = await syncWith(
      mirror,
      { once: true, full: true, signal: new AbortController().signal, start },
      out,
    );
    expect(code).toBe(0);
    expect(asked).toEqual(["resync true"]);
    expect(stderr.text).toBe(
      `${ERASE}resyncing: 3 pages, 600 orders, 1,203 requests, 40.0/s${ERASE}`,
    );
    expect(stdout.text).toMatch(/^changesWritten: 7$/m);
    expect(mirror.closed).toBe(1);
  });

  it("until stopped: the resync first, with its progress and its own line, then run()", async () => {
    const stop = new AbortController();
    const asked: string[] = [];
    const mirror = new ScriptedMirror({
      resync: async ({ onProgress }) => {
        asked.push("resync");
        onProgress?.({ pages: 1, orders: 200, requests: 401, ratePerSecond: 10 });
        return reportOf();
      },
      run: async ({ signal }) => {
        asked.push("run");
        stop.abort();
        await aborted(signal);
      },
    });
    const { out, stdout, stderr } = output({ tty: true });
    await syncWith(
      mirror,
      { once: false, full: true, signal: stop.signal, start, now: () => at },
      out,
    );
    expect(asked).toEqual(["resync", "run"]);
    expect(stderr.text).toContain("resyncing: 1 page, 200 orders, 401 requests, 10.0/s");
    expect(stdout.text).toContain(`${start}\nresync: 2024-05-01T10:00:05Z pass 1: 10 orders seen`);
  });

  it("a resync that fails ends the command with its error, the mirror closed", async () => {
    const mirror = new ScriptedMirror({
      resync: async () => {
        throw new MirrorError("resync_incomplete", "two orders failed");
      },
    });
    const { out } = output();
    await expect(
      syncWith(
        mirror,
        { once: true, full: true, signal: new AbortController().signal, start },
        out,
      ),
    ).rejects.toMatchObject({ code: "resync_incomplete" });
    expect(mirror.closed).toBe(1);
  });
});

describe("sync --once", () => {
  it("prints every change the pass wrote, even those the stream reaches after the pass resolved", async () => {
    const mirror: ScriptedMirror = new ScriptedMirror({
      sync: async () => {
        // Written, but reaching the stream only later (another turn of the event loop).
        setImmediate(() => mirror.push(change(1), change(2)));
        setTimeout(() => mirror.push(change(3)), 5);
        return reportOf({ changesWritten: 3 });
      },
    });
    const { out, stdout } = output({ json: true });
    expect(
      await syncWith(mirror, { once: true, signal: new AbortController().signal, start }, out),
    ).toBe(0);
    const lines = stdout.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id ?? l.type)).toEqual([1, 2, 3, "sync.summary"]);
  });

  it("in text: the report, invalid orders one per line, no start line", async () => {
    const mirror = new ScriptedMirror({
      sync: async ({ onProgress }) => {
        onProgress?.({ pages: 1, orders: 5, requests: 1, ratePerSecond: 1 });
        return reportOf({
          invalidOrders: [
            { orderNumber: 100_123, field: "totals.order", reason: "not a decimal", at: "x" },
          ],
        });
      },
    });
    const { out, stdout, stderr } = output({ tty: true });
    await syncWith(mirror, { once: true, signal: new AbortController().signal, start }, out);
    expect(stdout.text).toBe(
      [
        "ordersSeen: 10",
        "ordersAdded: 2",
        "ordersChanged: 1",
        "itemsReread: 3",
        "shipmentsReread: 3",
        "changesWritten: 4",
        "requests: 17",
        "durationMs: 1500",
        "invalidOrders: 1",
        "  100123 totals.order: not a decimal",
        "",
      ].join("\n"),
    );
    expect(stderr.text).toBe(`${ERASE}syncing: 1 page, 5 orders, 1 request, 1.0/s${ERASE}`);
  });

  it("a sweep held by another process: says who and since when, exit 4", async () => {
    const held = new SweepHeldError("host-b/4242/7f3a", "2024-05-01T09:58:00.000Z");
    const mirror = new ScriptedMirror({ sync: () => Promise.reject(held) });
    const { out, stderr } = output();
    const error = await rejection(
      syncWith(mirror, { once: true, signal: new AbortController().signal, start }, out),
    );
    expect(mirror.closed).toBe(1);
    expect(report(error, out)).toBe(4);
    expect(stderr.text).toBe(
      "error (sweep_held): another process holds the sweep (host-b/4242/7f3a, since 2024-05-01T09:58:00.000Z); no pass was made\n" +
        `hint: ${held.hint}\n`,
    );
    const json = output({ json: true });
    expect(report(error, json.out)).toBe(4);
    expect(JSON.parse(json.stderr.text)).toMatchObject({
      code: "sweep_held",
      holder: "host-b/4242/7f3a",
      since: "2024-05-01T09:58:00.000Z",
    });
  });
});

describe("the mirror's log lines", () => {
  it("are `warning: message key=value` lines on stderr, erasing a progress line first", () => {
    const { out, stderr } = output({ tty: true });
    const logger = cliLogger(out);
    out.progress("syncing: 1 page");
    logger.warn("[partner-orders] reading order 100001 failed; trying again soon", {
      error: "BadRequestError",
      status: 400,
      detail: "two words",
    });
    logger.error("[partner-orders] store error", new Error("disk full"));
    expect(stderr.text).toBe(
      `${ERASE}syncing: 1 page${ERASE}` +
        'warning: reading order 100001 failed; trying again soon error=BadRequestError status=400 detail="two words"\n' +
        'error: store error detail="disk full"\n',
    );
  });

  it("are JSON lines with --json", () => {
    const { out, stderr } = output({ json: true });
    cliLogger(out).warn("[partner-orders] sweep failed", { status: 503 });
    expect(JSON.parse(stderr.text)).toEqual({ warning: "sweep failed", status: 503 });
  });
});

describe("a reader that went away", () => {
  it("closes the output: nothing more is written, and `closed` aborts", () => {
    let onError: ((error: Error) => void) | undefined;
    const written: string[] = [];
    const stdout = {
      write: (text: string) => written.push(text),
      on: (_event: "error", listener: (error: Error) => void) => {
        onError = listener;
      },
    };
    const out = new Output({ json: false, tty: false, stdout, stderr: sink() });
    out.line({ a: 1 });
    expect(out.closed.aborted).toBe(false);
    onError?.(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    expect(out.closed.aborted).toBe(true);
    out.line({ a: 2 });
    expect(written).toEqual(["a: 1\n"]);
  });
});
