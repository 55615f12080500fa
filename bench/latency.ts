/**
 * Latency and client CPU per call, for every contender, sequentially and at concurrency 16, in
 * rounds with the contenders' order rotated each round.
 */
import type { Contender } from "./contenders";
import { median, rotate } from "./stats";

export type Scenario = "order" | "page" | "iterate";
export type Mode = "sequential" | "concurrency 16";

export interface RoundFigures {
  /** Median latency of the round's calls, µs. */
  latencyUs: number;
  /** Client CPU (user + system) per call, µs. */
  cpuUs: number;
}

/** results[scenario][mode][contender name] = one entry per round. */
export type LatencyResults = Record<Scenario, Record<Mode, Record<string, RoundFigures[]>>>;

export const SCENARIOS: { id: Scenario; label: string }[] = [
  { id: "order", label: "one order (GET /v1/orders/{n})" },
  { id: "page", label: "200-order page, money converted" },
  { id: "iterate", label: "iterate 20,000 orders (100 pages)" },
];
export const MODES: Mode[] = ["sequential", "concurrency 16"];

/** Calls per contender per round: enough for a stable median, few enough for the 5-minute budget. */
const CALLS: Record<Scenario, Record<Mode, number>> = {
  order: { sequential: 150, "concurrency 16": 320 },
  page: { sequential: 30, "concurrency 16": 64 },
  iterate: { sequential: 1, "concurrency 16": 16 },
};

function call(contender: Contender, scenario: Scenario, i: number, firstOrder: number) {
  switch (scenario) {
    case "order":
      return contender.getOrder(firstOrder + (i % 1000));
    case "page":
      return contender.getPage();
    case "iterate":
      return contender.iterate();
  }
}

/** Runs `calls` calls with `concurrency` in flight; per-call latency and CPU. */
async function measure(
  run: (i: number) => Promise<unknown>,
  calls: number,
  concurrency: number,
): Promise<RoundFigures> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      const started = performance.now();
      await run(i);
      latencies.push((performance.now() - started) * 1000);
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  const used = process.cpuUsage(cpu);
  return { latencyUs: median(latencies), cpuUs: (used.user + used.system) / calls };
}

export async function runLatency(
  contenders: Contender[],
  firstOrder: number,
  rounds: number,
  progress: (line: string) => void,
): Promise<LatencyResults> {
  const results = {} as LatencyResults;
  for (const { id, label } of SCENARIOS) {
    results[id] = {} as Record<Mode, Record<string, RoundFigures[]>>;
    for (const mode of MODES) {
      const perContender: Record<string, RoundFigures[]> = {};
      for (const c of contenders) perContender[c.name] = [];
      const calls = CALLS[id][mode];
      const concurrency = mode === "sequential" ? 1 : 16;
      const started = performance.now();
      // One unrecorded pass warms the JIT and the connection pool of every contender.
      for (const c of contenders) {
        await measure((i) => call(c, id, i, firstOrder), Math.min(calls, 16), concurrency);
      }
      // 16 concurrent walks of 20,000 orders are 1,600 pages per contender per round: one round in
      // five keeps the whole run inside its 5-minute budget on 2 cores.
      const roundsHere =
        id === "iterate" && mode !== "sequential" ? Math.max(1, Math.floor(rounds / 5)) : rounds;
      for (let round = 0; round < roundsHere; round++) {
        for (const c of rotate(contenders, round)) {
          (perContender[c.name] as RoundFigures[]).push(
            await measure((i) => call(c, id, i, firstOrder), calls, concurrency),
          );
        }
      }
      results[id][mode] = perContender;
      progress(
        `${label}, ${mode}: ${roundsHere} rounds x ${calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
  }
  return results;
}
