/**
 * The package version, written in at build time from package.json (tsup's and vitest's `define`),
 * so no JSON is imported at run time. Source run without either (tsx) says "0.0.0-dev".
 */
// @ts-nocheck

declare const __PARTNER_ORDERS_VERSION__: string | undefined;

/** What `read` gives (the built-in version), or "0.0.0-dev" when there is none to read. */
export function builtVersion(read: () => string | undefined): string {
  try {
    return read() ?? "0.0.0-dev";
  } catch {
    // Source run without a `define`: the constant does not exist at all (a ReferenceError).
    return "0.0.0-dev";
  }
}

export const sdkVersion: string = builtVersion(() => __PARTNER_ORDERS_VERSION__);

/** The globals a runtime is recognised by; a parameter so tests can play any runtime. */
export interface RuntimeGlobals {
  Bun?: { version?: string };
  Deno?: { version?: { deno?: string } };
  process?: { versions?: { node?: string } };
  window?: unknown;
  document?: unknown;
}

/**
 * `node/20.11.1`, `bun/1.1.0`, `deno/2.0.0` or `unknown`. Bun and Deno are asked first: both also
 * fill `process.versions.node` for compatibility.
 */
export function detectRuntime(g: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  if (typeof g.Bun?.version === "string") return `bun/${g.Bun.version}`;
  if (typeof g.Deno?.version?.deno === "string") return `deno/${g.Deno.version.deno}`;
  const node = g.process?.versions?.node;
  if (typeof node === "string") return `node/${node}`;
  return "unknown";
}

/**
 * `partner-orders/<version> (<runtime>/<version>)`, or undefined in a browser: there the browser
 * sends its own, and a cross-origin request setting User-Agent would need a CORS preflight the
 * service may not answer.
 */
export function userAgent(g: RuntimeGlobals = globalThis as RuntimeGlobals): string | undefined {
  if (g.window !== undefined && g.document !== undefined) return undefined;
  return `partner-orders/${sdkVersion} (${detectRuntime(g)})`;
}
