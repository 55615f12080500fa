import { type Fetch, fetchWire, loadUndici, undiciWire, type Wire } from "./wire";

/**
 * The global fetch when this module loaded. Another one at call time means an interceptor was
 * installed since (msw, nock); one not named `fetch` means it was there already (msw names its own
 * `fetchProxy`).
 */
const loadedFetch = globalThis.fetch;

/** True on Node itself: Bun and Deno answer to `process.versions.node` too, and have their own fetch. */
function isNode(): boolean {
  const g = globalThis as {
    Bun?: unknown;
    Deno?: unknown;
    process?: { versions?: { node?: string } };
  };
  return typeof g.process?.versions?.node === "string" && !g.Bun && !g.Deno;
}

/**
 * A client's default wire: `undici.request` on a kept-alive pool of its own on Node, when undici is
 * installed; the global `fetch`, looked up at call time, otherwise. Also `fetch` when something has
 * replaced `globalThis.fetch` (msw, nock): their interceptors see only
 * fetch, and a partner who installs one expects the SDK's requests to reach it. `onlyFetch` (the
 * `PARTNER_ORDERS_HTTP=fetch` environment variable) always uses fetch.
 */
export function nodeWire(onlyFetch: boolean): Wire {
  const viaFetch = fetchWire(((request) => globalThis.fetch(request)) as Fetch);
  if (onlyFetch || !isNode()) return viaFetch;
  let chosen: Wire | undefined;
  let loading: Promise<Wire> | undefined;
  return (request) => {
    const current = globalThis.fetch;
    if (current !== loadedFetch || current.name !== "fetch") return viaFetch(request);
    if (chosen) return chosen(request);
    loading ??= loadUndici().then((undici) => {
      chosen = undici ? undiciWire(undici, new undici.Agent()) : viaFetch;
      return chosen;
    });
    return loading.then((wire) => wire(request));
  };
}
