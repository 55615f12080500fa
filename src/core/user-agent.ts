// Written in at build time (tsup's and vitest's `define`), so no JSON is imported at run time.
declare const __PARTNER_ORDERS_VERSION__: string | undefined;

export function builtVersion(read: () => string | undefined): string {
  try {
    return read() ?? "0.0.0-dev";
  } catch {
    // Without a `define` (tsx) the constant does not exist.
    return "0.0.0-dev";
  }
}

export const sdkVersion: string = builtVersion(() => __PARTNER_ORDERS_VERSION__);

export interface RuntimeGlobals {
  Bun?: { version?: string };
  Deno?: { version?: { deno?: string } };
  process?: { versions?: { node?: string } };
  window?: unknown;
  document?: unknown;
}

// Bun and Deno first: both also fill `process.versions.node`.
export function detectRuntime(g: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  if (typeof g.Bun?.version === "string") return `bun/${g.Bun.version}`;
  if (typeof g.Deno?.version?.deno === "string") return `deno/${g.Deno.version.deno}`;
  const node = g.process?.versions?.node;
  if (typeof node === "string") return `node/${node}`;
  return "unknown";
}

// None in a browser: setting one would need a CORS preflight the service may not answer.
export function userAgent(g: RuntimeGlobals = globalThis as RuntimeGlobals): string | undefined {
  if (g.window !== undefined && g.document !== undefined) return undefined;
  return `partner-orders/${sdkVersion} (${detectRuntime(g)})`;
}
