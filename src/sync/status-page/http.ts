import type { RequestAddresses } from "./access";
import type { NodeStatusPageRequest } from "./types";

export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

/** What the handler answers: a body, or the change stream from a position. */
export type Outcome =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: 200; headers: Record<string, string>; stream: number };

/** A request as the core sees it, whichever adapter received it. */
export interface PageRequest {
  method: string | undefined;
  url: URL;
  originalPath: string | undefined;
  header(name: string): string | undefined;
  addresses: RequestAddresses;
  raw: NodeStatusPageRequest | Request;
}

export function page(type: string, body: string, status = 200): Outcome {
  return { status, headers: { ...SECURITY_HEADERS, "content-type": type }, body };
}

export function json(status: number, body: unknown, extra: Record<string, string> = {}): Outcome {
  return {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", ...extra },
    body: JSON.stringify(body),
  };
}

export function fromNode(req: NodeStatusPageRequest): PageRequest {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };
  let url: URL;
  try {
    url = new URL(req.url ?? "/", "http://page.invalid");
  } catch {
    url = new URL("http://page.invalid/invalid-path");
  }
  const original = req.originalUrl === undefined ? undefined : req.originalUrl.split("?")[0];
  return {
    method: req.method,
    url,
    originalPath: original === req.url?.split("?")[0] ? undefined : original,
    header,
    addresses: {
      remote: req.socket?.remoteAddress,
      local: req.socket?.localAddress,
      host: header("host"),
      forwarded: header("forwarded") !== undefined || header("x-forwarded-for") !== undefined,
    },
    raw: req,
  };
}

/** The peer's and the local address, from what a Fetch-style server passes after the request. */
export function addressesOf(context: unknown[]): Pick<RequestAddresses, "remote" | "local"> {
  for (const item of context) {
    const c = item as {
      remoteAddr?: { hostname?: string };
      incoming?: { socket?: { remoteAddress?: string; localAddress?: string } };
      remoteAddress?: string;
      localAddress?: string;
    } | null;
    if (!c || typeof c !== "object") continue;
    if (typeof c.remoteAddress === "string")
      return { remote: c.remoteAddress, local: c.localAddress };
    const socket = c.incoming?.socket;
    if (socket) return { remote: socket.remoteAddress, local: socket.localAddress };
    if (typeof c.remoteAddr?.hostname === "string")
      return { remote: c.remoteAddr.hostname, local: undefined };
  }
  return { remote: undefined, local: undefined };
}

export function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
