/**
 * The measurements behind the goals that are not latency: token single flight, poll spacing,
 * memory over 200,000 orders, cold import and bundle size.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import type { OrderRequest } from "../src/index";
import { PartnerOrders } from "../src/index";
import type { Clock } from "../src/internal/clock";
import { createSandbox } from "../src/testing";
import type { Credentials } from "./contenders";
import { median } from "./stats";

export const root = resolve(import.meta.dirname, "..");

/**
 * 1,000 concurrent calls on a cold client against the bench server: how many token requests the
 * server saw (API document, Authentication 1: "do not mint per request").
 */
export async function tokenRequestsForColdBurst(
  baseUrl: string,
  credentials: Credentials,
  firstOrder: number,
  calls = 1_000,
): Promise<{ calls: number; tokenRequests: number; failed: number }> {
  await fetch(`${baseUrl}/bench/reset`, { method: "POST" });
  const client = new PartnerOrders({ baseUrl, ...credentials, scopes: ["orders:read"] });
  const settled = await Promise.allSettled(
    Array.from({ length: calls }, (_, i) => client.orders.get(firstOrder + i)),
  );
  const counters = (await (await fetch(`${baseUrl}/bench/counters`)).json()) as {
    tokenRequests: number;
  };
  return {
    calls,
    tokenRequests: counters.tokenRequests,
    failed: settled.filter((s) => s.status === "rejected").length,
  };
}

/**
 * submitOrderAndWait against a sandbox whose submission completes after `completeAfterMs`, counted
 * at the sandbox. The sandbox runs on a manual clock that the client's sleeps move forward, so the
 * service's real `Retry-After: 2` is honoured without waiting seconds of real time.
 */
export async function pollsForSubmission(completeAfterMs = 9_000): Promise<{
  polls: number;
  allowed: number;
  minGapMs: number;
  retryAfterMs: number;
  status: string;
}> {
  const sandbox = createSandbox({
    clock: "manual",
    syncWaitMs: 0,
    submissionTimings: { processingAfterMs: 1_000, completeAfterMs },
  });
  const pollTimes: number[] = [];
  const clock: Clock = {
    now: () => sandbox.clock.now(),
    monotonic: () => sandbox.clock.monotonic(),
    sleep: async (ms) => sandbox.clock.advance(ms),
  };
  const client = new PartnerOrders({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    clock,
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes("/v1/orders/submissions/")) pollTimes.push(sandbox.clock.now());
      return sandbox.fetch(input, init);
    },
  });
  const request: OrderRequest = {
    siteId: sandbox.fixtures.sites.main,
    partnerOrderId: "bench-poll-0001",
    shipTo: {
      name: "Ada Lovelace",
      address1: "12 St James's Square",
      city: "London",
      state: "London",
      postalCode: "SW1Y 4JH",
      country: "GB",
    },
    lines: [
      {
        productId: sandbox.fixtures.products.stockTracked,
        variantId: sandbox.fixtures.variants.plenty,
        partnerLineId: "line-1",
        quantity: 1,
      },
    ],
  };
  const submission = await client.submitOrderAndWait(request, { timeoutMs: 120_000 });
  const polls = sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"] ?? 0;
  const gaps = pollTimes.slice(1).map((t, i) => t - (pollTimes[i] as number));
  await sandbox.close();
  const retryAfterMs = 2_000;
  return {
    polls,
    // One poll per Retry-After interval until the submission is terminal, and the one that sees it.
    allowed: Math.ceil(completeAfterMs / retryAfterMs),
    minGapMs: gaps.length ? Math.min(...gaps) : Number.NaN,
    retryAfterMs,
    status: submission.status,
  };
}

export interface HeapFigures {
  mode: string;
  orders: number;
  seconds: number;
  peakAboveStartMB: number;
  keptPage100ToLastMB: number;
}

/** bench/heap.ts in a child process with --expose-gc. */
export function heapRun(mode: "sdk" | "fetch"): Promise<HeapFigures> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx", resolve(root, "bench/heap.ts"), mode],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", fail);
    child.on("exit", (code) => {
      if (code !== 0) return fail(new Error(`bench/heap.ts ${mode} exited with ${code}`));
      done(JSON.parse(out.trim().split("\n").pop() as string) as HeapFigures);
    });
  });
}

/** Builds dist/ when it is missing (a clean clone): the cold-import goal is about the built entry. */
export function ensureBuilt(progress: (line: string) => void): string {
  const entry = resolve(root, "dist/index.js");
  if (!existsSync(entry)) {
    progress("dist/index.js missing: npm run build");
    const built = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0) throw new Error("npm run build failed");
  }
  return entry;
}

export interface ImportFigures {
  label: string;
  medianMs: number;
  aboveBareMs: number;
}

/**
 * Cold start: `node -e "import(...)"` against `node -e ""`, interleaved. A target's figure above
 * bare node is the median over rounds of its time less bare node's in the same round, so a burst of
 * load falls on both sides of a difference rather than on one median.
 */
export function coldImport(entry: string, rounds = 31): ImportFigures[] {
  const targets: { label: string; code: string }[] = [
    { label: "bare node", code: "" },
    { label: "decimal.js", code: "import('decimal.js')" },
    { label: "openapi-fetch", code: "import('openapi-fetch')" },
    { label: "partner-orders (dist/index.js)", code: `import(${JSON.stringify(entry)})` },
  ];
  const times = new Map<string, number[]>(targets.map((t) => [t.label, []]));
  for (let round = -2; round < rounds; round++) {
    // Each round in another order, so no target always runs right after bare node.
    const turn =
      round < 0 ? targets : [...targets.slice(round % 4), ...targets.slice(0, round % 4)];
    for (const target of turn) {
      const started = performance.now();
      const result = spawnSync(process.execPath, ["-e", target.code], { cwd: root });
      const ms = performance.now() - started;
      if (result.status !== 0) throw new Error(`node -e "${target.code}" failed`);
      // Two unrecorded rounds warm the OS file cache.
      if (round >= 0) times.get(target.label)?.push(ms);
    }
  }
  const bare = times.get("bare node") ?? [];
  return targets.map(({ label }) => {
    const own = times.get(label) ?? [];
    return {
      label,
      medianMs: median(own),
      aboveBareMs: median(own.map((ms, i) => ms - (bare[i] as number))),
    };
  });
}

export interface BundleFigures {
  label: string;
  minifiedKB: number;
  gzipKB: number;
}

/**
 * What a bundler ships for `import { PartnerOrders }`: the root entry with its dependencies. The
 * optional peers are left out: the root entry loads undici only for mutual TLS and the MCP SDK only
 * for `client.mcp`, on demand.
 */
export async function bundleSizes(entry: string): Promise<BundleFigures[]> {
  const esbuild = await import("esbuild");
  const measure = async (label: string, contents: string): Promise<BundleFigures> => {
    const result = await esbuild.build({
      stdin: { contents, resolveDir: root, loader: "js" },
      bundle: true,
      minify: true,
      write: false,
      format: "esm",
      platform: "node",
      external: ["undici", "@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/*"],
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.contents ?? new Uint8Array();
    return { label, minifiedKB: code.length / 1024, gzipKB: gzipSync(code).length / 1024 };
  };
  return [
    await measure("openapi-fetch", `export { default } from "openapi-fetch";`),
    await measure("decimal.js", `export { default } from "decimal.js";`),
    await measure(
      "partner-orders `{ PartnerOrders }`",
      `export { PartnerOrders } from ${JSON.stringify(entry)};`,
    ),
  ];
}
