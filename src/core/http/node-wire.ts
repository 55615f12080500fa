import { type Fetch, fetchWire, loadUndici, undiciWire, type Wire } from "./wire";

// Another fetch at call time, or one not named `fetch` (msw's `fetchProxy`), is an interceptor.
const loadedFetch = globalThis.fetch;

// Bun and Deno fill `process.versions.node` too, and have their own fetch.
function isNode(): boolean {
  const g = globalThis as {
    Bun?: unknown;
    Deno?: unknown;
    process?: { versions?: { node?: string } };
  };
  return typeof g.process?.versions?.node === "string" && !g.Bun && !g.Deno;
}

/** Fetch when an interceptor (msw, nock) replaced it: a partner expects it to see our requests. */
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
      chosen = undici ? undiciWire(new undici.Agent()) : viaFetch;
      return chosen;
    });
    return loading.then((wire) => wire(request));
  };
}
