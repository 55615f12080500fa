/**
 * `npm run bench`: this SDK against what a partner would otherwise write, side by side in one run,
 * and the goals it is held to. Prints progress and a report, and writes bench/results.md (keeping
 * its hand-written notes).
 *
 *   BENCH_ROUNDS=7 npm run bench     more rounds (default 5)
 *
 * See bench/README.md for what is measured and how.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { breakdown } from "./breakdown";
import { fetchToken, handWritten, openapiFetch, sdk } from "./contenders";
import { firstSyncCpu, firstSyncRatio } from "./first-sync";
import {
  bundleSizes,
  coldImport,
  ensureBuilt,
  heapRun,
  pollsForSubmission,
  root,
  tokenRequestsForColdBurst,
} from "./goals";
import { MODES, runLatency, SCENARIOS } from "./latency";
import { runPaired } from "./paired";
import { median, ratio, spread, time, withNotes } from "./stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CREDENTIALS = { clientId: "sandbox-client", clientSecret: "sandbox-secret" };
const BASELINE = "fetch + JSON.parse";
const SDK = "partner-orders";
const OTEL = "partner-orders + otel api";
const CONTROL = "partner-orders, a second client";

const startedAt = performance.now();
const progress = (line: string) =>
  console.log(`[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${line}`);

/** Starts bench/server.ts in its own process and waits for the URL it prints. */
async function startServer() {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(root, "bench/server.ts")], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((done, fail) => {
    lines.once("line", done);
    child.once("exit", (code) => fail(new Error(`bench server exited with ${code}`)));
  });
  lines.close();
  const info = JSON.parse(first) as { url: string; orders: number; firstOrderNumber: number };
  return {
    ...info,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        child.stdin.end();
      }),
  };
}

const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "unknown"}), Node ${process.version}, ${os.platform()} ${os.arch()}, load average at start ${os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(" / ")}`;
progress(`machine: ${machine}`);

const entry = ensureBuilt(progress);
const server = await startServer();
progress(`bench server (separate process): ${server.url}, ${server.orders} orders`);

let report: string;
try {
  const token = await fetchToken(server.url, CREDENTIALS);
  const contenders = [
    handWritten(server.url, token),
    openapiFetch(server.url, token),
    sdk(server.url, CREDENTIALS),
  ];
  // The SDK with and without the API, and a second plain client as a control of the method.
  const otelContenders = [
    sdk(server.url, CREDENTIALS),
    sdk(server.url, CREDENTIALS, undefined, true),
    { ...sdk(server.url, CREDENTIALS), name: CONTROL },
  ];
  // The SDK's token is fetched here, before any timing.
  for (const c of [...contenders, ...otelContenders]) {
    await c.getOrder(server.firstOrderNumber);
    const count = await c.iterate();
    if (count !== server.orders) throw new Error(`${c.name} iterated ${count} orders`);
  }
  progress(`contenders agree on ${server.orders} orders; ${ROUNDS} rounds each, order rotated`);

  const latency = await runLatency(contenders, server.firstOrderNumber, ROUNDS, progress);

  // The goals' ratios: each client's call against the hand-written one's in the same cycle.
  const headToHead = {
    order: await runPaired(contenders, "order", server.firstOrderNumber, ROUNDS),
    page: await runPaired(contenders, "page", server.firstOrderNumber, ROUNDS),
  };
  for (const [scenario, r] of Object.entries(headToHead)) {
    progress(
      `head to head, ${scenario}: ${ROUNDS} rounds x ${r.cycles} cycles, SDK / hand-written ${spread(r.latencyRatio[SDK] ?? [], ratio)}`,
    );
  }

  const otel = {
    order: await runPaired(otelContenders, "order", server.firstOrderNumber, ROUNDS),
    page: await runPaired(otelContenders, "page", server.firstOrderNumber, ROUNDS),
  };
  for (const [scenario, r] of Object.entries(otel)) {
    progress(
      `otel api, no provider, ${scenario}: ${ROUNDS} rounds x ${r.cycles} cycles, with / without ${spread(r.latencyRatio[OTEL] ?? [], ratio)}, control ${spread(r.latencyRatio[CONTROL] ?? [], ratio)}`,
    );
  }

  const firstSync = await firstSyncCpu(server.url, CREDENTIALS, token);
  progress(
    `first sync: ${firstSync.requests} requests, SDK / bare undici.request CPU ${ratio(firstSyncRatio(firstSync))}`,
  );

  const burst = await tokenRequestsForColdBurst(server.url, CREDENTIALS, server.firstOrderNumber);
  progress(
    `token: ${burst.tokenRequests} token request(s) for ${burst.calls} cold concurrent calls`,
  );
  await server.stop();

  const polls = await pollsForSubmission();
  progress(`submitOrderAndWait: ${polls.polls} polls (allowed ${polls.allowed}), ${polls.status}`);

  const heapSdk = await heapRun("sdk");
  const heapFetch = await heapRun("fetch");
  progress(
    `200,000 orders: kept ${heapSdk.keptPage100ToLastMB.toFixed(2)} MB (hand-written ${heapFetch.keptPage100ToLastMB.toFixed(2)} MB)`,
  );

  const imports = coldImport(entry);
  const sdkImport = imports.find((i) => i.label.startsWith("partner-orders"));
  progress(`cold import: partner-orders +${sdkImport?.aboveBareMs.toFixed(1)} ms above bare node`);

  const bundles = await bundleSizes(entry);
  const parts = await breakdown();
  progress("in-process breakdown done");

  report = render({
    latency,
    headToHead,
    otel,
    firstSync,
    burst,
    polls,
    heapSdk,
    heapFetch,
    imports,
    bundles,
    parts,
  });
} catch (error) {
  await server.stop().catch(() => {});
  throw error;
}

const resultsPath = resolve(root, "bench/results.md");
const previous = existsSync(resultsPath) ? readFileSync(resultsPath, "utf8") : "";
report = withNotes(report, previous);
writeFileSync(resultsPath, report);
console.log(`\n${report}`);
progress("wrote bench/results.md");

// ---------------------------------------------------------------------------------------------

function render(r: {
  latency: Awaited<ReturnType<typeof runLatency>>;
  headToHead: Record<"order" | "page", Awaited<ReturnType<typeof runPaired>>>;
  otel: Record<"order" | "page", Awaited<ReturnType<typeof runPaired>>>;
  firstSync: Awaited<ReturnType<typeof firstSyncCpu>>;
  burst: Awaited<ReturnType<typeof tokenRequestsForColdBurst>>;
  polls: Awaited<ReturnType<typeof pollsForSubmission>>;
  heapSdk: Awaited<ReturnType<typeof heapRun>>;
  heapFetch: Awaited<ReturnType<typeof heapRun>>;
  imports: ReturnType<typeof coldImport>;
  bundles: Awaited<ReturnType<typeof bundleSizes>>;
  parts: Awaited<ReturnType<typeof breakdown>>;
}): string {
  const out: string[] = [];
  const ratiosOf = (
    scenario: (typeof SCENARIOS)[number]["id"],
    mode: (typeof MODES)[number],
    name: string,
    field: "latencyUs" | "cpuUs",
  ) => {
    const base = r.latency[scenario][mode][BASELINE] ?? [];
    return (r.latency[scenario][mode][name] ?? []).map(
      (round, i) => round[field] / ((base[i]?.[field] ?? Number.NaN) || Number.NaN),
    );
  };

  out.push("# Benchmark results", "");
  out.push(`Machine: ${machine}.`, "");
  out.push(
    `Server: the sandbox's HTTP server on loopback in a separate process (bench/server.ts). ${ROUNDS} rounds, contenders' order rotated each round. Latency: median of the round's calls, then median (min-max) over rounds. CPU: the client process's user + system time per call. Ratios are to the hand-written \`fetch\` + \`JSON.parse\` + \`new Decimal\` baseline, per round, median (min-max) over rounds.`,
    "",
  );

  out.push("## Goals", "");
  out.push("| goal | measured | met |", "|---|---|---|");
  const goal = (label: string, measured: string, met: boolean) =>
    out.push(`| ${label} | ${measured} | ${met ? "met" : "**not met**"} |`);
  // Interleaved call by call (paired.ts): the rotated rounds' ratios, in the tables below, drift
  // with the machine's load between one contender's turn and the next.
  for (const [scenario, label, limit] of [
    ["order", "one order: SDK / hand-written fetch", 0.85],
    ["page", "200-order page with money: SDK / hand-written", 0.8],
  ] as const) {
    const measured = r.headToHead[scenario].latencyRatio[SDK] ?? [];
    goal(
      `${label} <= ${limit.toFixed(2)} (interleaved call by call, median of rounds)`,
      `${spread(measured, ratio)}; rotated rounds ${ratio(median(ratiosOf(scenario, "sequential", SDK, "latencyUs")))}`,
      median(measured) <= limit,
    );
  }
  // The cost of @opentelemetry/api with no provider, interleaved with the SDK without it (paired.ts).
  for (const [scenario, label] of [
    ["order", "one order"],
    ["page", "200-order page"],
  ] as const) {
    const measured = median(r.otel[scenario].latencyRatio[OTEL] ?? []);
    goal(
      `${label} with @opentelemetry/api installed, no provider: SDK with it / without <= 1.03 (interleaved call by call, median of rounds)`,
      `${spread(r.otel[scenario].latencyRatio[OTEL] ?? [], ratio)}; control ${spread(r.otel[scenario].latencyRatio[CONTROL] ?? [], ratio)}`,
      measured <= 1.03,
    );
  }
  const syncRatio = firstSyncRatio(r.firstSync);
  const perRequest = (list: number[]) => time(median(list));
  goal(
    `first sync of ${r.firstSync.requests.toLocaleString("en")} requests (100 pages, then every order, 16 in flight): client CPU per request, SDK / bare undici.request <= 1.5`,
    `${ratio(syncRatio)} (${perRequest(r.firstSync.sdkUs)} / ${perRequest(r.firstSync.bareUs)})`,
    syncRatio <= 1.5,
  );
  goal(
    "200,000 orders: heap kept between page 100 and page 1,000 < 2 MB",
    `${r.heapSdk.keptPage100ToLastMB.toFixed(2)} MB (peak +${r.heapSdk.peakAboveStartMB.toFixed(1)} MB)`,
    r.heapSdk.keptPage100ToLastMB < 2,
  );
  goal(
    `token: exactly 1 token request for ${r.burst.calls} concurrent cold calls (counted at the server)`,
    `${r.burst.tokenRequests}${r.burst.failed ? ` (${r.burst.failed} calls failed)` : ""}`,
    r.burst.tokenRequests === 1 && r.burst.failed === 0,
  );
  goal(
    `submitOrderAndWait: at most one poll per Retry-After (${r.polls.retryAfterMs / 1000} s) interval`,
    `${r.polls.polls} polls for a submission terminal after 9 s (at most ${r.polls.allowed}); shortest gap ${(r.polls.minGapMs / 1000).toFixed(1)} s`,
    r.polls.polls <= r.polls.allowed && !(r.polls.minGapMs < r.polls.retryAfterMs),
  );
  const sdkImport = r.imports.find((i) => i.label.startsWith("partner-orders"));
  goal(
    "cold import of dist/index.js above bare node < 20 ms",
    `${sdkImport?.aboveBareMs.toFixed(1)} ms`,
    (sdkImport?.aboveBareMs ?? Number.POSITIVE_INFINITY) < 20,
  );
  out.push("");

  for (const { id, label } of SCENARIOS) {
    out.push(`## ${label}`, "");
    out.push(
      "| mode | client | latency | CPU / call | latency ratio | CPU ratio |",
      "|---|---|---|---|---|---|",
    );
    for (const mode of MODES) {
      for (const [name, rounds] of Object.entries(r.latency[id][mode])) {
        const lat = rounds.map((x) => x.latencyUs);
        const cpu = rounds.map((x) => x.cpuUs);
        const lr =
          name === BASELINE ? "1.00x" : spread(ratiosOf(id, mode, name, "latencyUs"), ratio);
        const cr = name === BASELINE ? "1.00x" : spread(ratiosOf(id, mode, name, "cpuUs"), ratio);
        out.push(
          `| ${mode} | ${name} | ${spread(lat, time)} | ${spread(cpu, time)} | ${lr} | ${cr} |`,
        );
      }
    }
    out.push("");
  }

  out.push("## Head to head, call by call", "");
  out.push(
    `The hand-written client (first), openapi-fetch and the SDK: one call each per cycle, every order of the three in turn, sequential (bench/paired.ts). Ratios per round to the hand-written call in the same cycle, as below; then median (min-max) over ${ROUNDS} rounds.`,
    "",
    ...pairedTable(r.headToHead),
    "",
  );

  out.push("## @opentelemetry/api installed, no provider registered", "");
  out.push(
    `The SDK with \`telemetry: false\` (first), with the API loaded and no provider, and a second \`telemetry: false\` client as a control of the method: one call each per cycle, every order of the three in turn, sequential (bench/paired.ts). Ratios per round to the first client: the median over the cycles of each call's latency (CPU) over the first client's call in the same cycle; "CPU means" is the ratio of the mean CPU per call, garbage collection included. Then median (min-max) over ${ROUNDS} rounds. The control's spread is what the method cannot tell apart.`,
    "",
    ...pairedTable(r.otel),
    "",
    `Load average (1 min) around these rounds: one order ${r.otel.order.load.map((l) => l.toFixed(1)).join(" -> ")}, a page ${r.otel.page.load.map((l) => l.toFixed(1)).join(" -> ")}.`,
    "",
  );

  out.push("## Memory: 200,000 orders through an async generator", "");
  out.push(
    "Child process with `--expose-gc`; an in-process `fetch` serves 1,000 pages of 200 (bench/heap.ts).",
    "",
    "| client | time | peak heap above start | heap kept, page 100 -> 1,000 |",
    "|---|---|---|---|",
  );
  for (const h of [r.heapFetch, r.heapSdk]) {
    out.push(
      `| ${h.mode === "sdk" ? SDK : "hand-written async generator"} | ${h.seconds.toFixed(2)} s | ${h.peakAboveStartMB.toFixed(1)} MB | ${h.keptPage100ToLastMB.toFixed(2)} MB |`,
    );
  }
  out.push("");

  out.push("## Start-up and size", "");
  out.push("| import | cold start (median) | above bare node |", "|---|---|---|");
  for (const i of r.imports) {
    out.push(
      `| ${i.label} | ${i.medianMs.toFixed(1)} ms | ${i.label === "bare node" ? "-" : `${i.aboveBareMs.toFixed(1)} ms`} |`,
    );
  }
  out.push(
    "",
    "| bundled (esbuild, minified, with dependencies) | minified | gzip |",
    "|---|---|---|",
  );
  for (const b of r.bundles) {
    out.push(`| ${b.label} | ${b.minifiedKB.toFixed(1)} kB | ${b.gzipKB.toFixed(1)} kB |`);
  }
  out.push("");

  out.push("## Where the time goes (in-process, no network)", "");
  out.push(
    `One 200-order page: ${(r.parts.pageBytes / 1024).toFixed(0)} KB, ${r.parts.moneyFields} non-null money fields.`,
    "",
    "| step | time |",
    "|---|---|",
  );
  for (const row of r.parts.rows) out.push(`| ${row.label} | ${time(row.us)} |`);
  out.push("");
  return out.join("\n");
}

/** A paired run's rows: each client's figures and its ratios to the run's first client. */
function pairedTable(runs: Record<"order" | "page", Awaited<ReturnType<typeof runPaired>>>) {
  const rows = [
    "| scenario | client | latency | CPU / call | latency ratio | CPU ratio | CPU means ratio |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const [scenario, label] of [
    ["order", "one order"],
    ["page", "200-order page"],
  ] as const) {
    const p = runs[scenario];
    const [first] = Object.keys(p.rounds);
    for (const [name, rounds] of Object.entries(p.rounds)) {
      const of = (field: Record<string, number[]>) =>
        name === first ? "1.00x" : spread(field[name] ?? [], ratio);
      rows.push(
        `| ${label}, ${p.cycles} cycles | ${name} | ${spread(
          rounds.map((x) => x.latencyUs),
          time,
        )} | ${spread(
          rounds.map((x) => x.cpuUs),
          time,
        )} | ${of(p.latencyRatio)} | ${of(p.cpuRatio)} | ${of(p.cpuMeanRatio)} |`,
      );
    }
  }
  return rows;
}
