/**
 * Contenders measured call by call in turn, for differences of a few percent: the cost of
 * `@opentelemetry/api` installed with no provider. Each cycle makes one call per contender, the
 * cycles going through every order of the contenders (for two: AB, BA; for three, all six), so
 * each runs before and after each other equally often, and drift in the machine's load, GC debt and
 * caches falls on all alike. Per round, a contender's latency ratio to the first one is the median
 * over the cycles of its call's latency over the first contender's call in the same cycle, and its
 * CPU ratio the same of the CPU used during each call; the ratio of the means of CPU per call is
 * kept too (it counts garbage collection, wherever it fell). Then median (min-max) over rounds.
 * Sequential only: one call in flight, so the CPU used during a call is that call's.
 */
import os from "node:os";
import type { Contender } from "./contenders";
import type { RoundFigures } from "./latency";
import { median } from "./stats";

export type PairedScenario = "order" | "page";

/** Cycles per round (one call per contender each), a multiple of 6 so every order comes equally. */
export const CYCLES: Record<PairedScenario, number> = { order: 1_500, page: 300 };

/** Every order of `items`. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

export interface PairedResults {
  /** Per contender, one entry per round: median latency and mean CPU of its calls. */
  rounds: Record<string, RoundFigures[]>;
  /** Per contender but the first, per round: its ratio to the first contender (see above). */
  latencyRatio: Record<string, number[]>;
  cpuRatio: Record<string, number[]>;
  /** Per contender but the first, per round: mean CPU per call over the first contender's. */
  cpuMeanRatio: Record<string, number[]>;
  cycles: number;
  /** 1-minute load average before and after the rounds. */
  load: [number, number];
}

function call(contender: Contender, scenario: PairedScenario, i: number, firstOrder: number) {
  return scenario === "order" ? contender.getOrder(firstOrder + (i % 1000)) : contender.getPage();
}

export async function runPaired(
  contenders: Contender[],
  scenario: PairedScenario,
  firstOrder: number,
  rounds: number,
  cycles = CYCLES[scenario],
): Promise<PairedResults> {
  const load0 = os.loadavg()[0] ?? Number.NaN;
  const names = contenders.map((c) => c.name);
  const results: PairedResults = {
    rounds: Object.fromEntries(names.map((n) => [n, []])),
    latencyRatio: Object.fromEntries(names.slice(1).map((n) => [n, []])),
    cpuRatio: Object.fromEntries(names.slice(1).map((n) => [n, []])),
    cpuMeanRatio: Object.fromEntries(names.slice(1).map((n) => [n, []])),
    cycles,
    load: [load0, Number.NaN],
  };
  const orders = permutations(contenders.map((_, k) => k));
  // Unrecorded cycles warm the JIT and each client's connection.
  for (let i = 0; i < 48; i++) {
    for (const k of orders[i % orders.length] as number[]) {
      await call(contenders[k] as Contender, scenario, i, firstOrder);
    }
  }
  for (let round = 0; round < rounds; round++) {
    const latencies = contenders.map(() => [] as number[]);
    const cpu = contenders.map(() => [] as number[]);
    for (let i = 0; i < cycles; i++) {
      for (const k of orders[(i + round) % orders.length] as number[]) {
        const c = contenders[k] as Contender;
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        await call(c, scenario, i, firstOrder);
        const ms = performance.now() - started;
        const used = process.cpuUsage(cpuBefore);
        (latencies[k] as number[]).push(ms * 1000);
        (cpu[k] as number[]).push(used.user + used.system);
      }
    }
    const figures = contenders.map((_, k) => ({
      latencyUs: median(latencies[k] as number[]),
      cpuUs: (cpu[k] as number[]).reduce((sum, us) => sum + us, 0) / cycles,
    }));
    const [base] = figures as [RoundFigures];
    /** Median over the cycles of `own[i] / first[i]`. */
    const paired = (own: number[], first: number[]) =>
      median(own.map((us, i) => us / (first[i] as number)));
    figures.forEach((f, k) => {
      const name = names[k] as string;
      results.rounds[name]?.push(f);
      if (k === 0) return;
      results.latencyRatio[name]?.push(paired(latencies[k] as number[], latencies[0] as number[]));
      results.cpuRatio[name]?.push(paired(cpu[k] as number[], cpu[0] as number[]));
      results.cpuMeanRatio[name]?.push(f.cpuUs / base.cpuUs);
    });
  }
  results.load[1] = os.loadavg()[0] ?? Number.NaN;
  return results;
}
