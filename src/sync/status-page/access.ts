import { isIPv4, isIPv6 } from "node:net";

/** Where a request came from and arrived, as far as the server can tell. */
export interface RequestAddresses {
  /** The peer's address (`socket.remoteAddress`); undefined when the server does not say. */
  remote: string | undefined;
  /** The address the request arrived on (`socket.localAddress`); undefined when not known. */
  local: string | undefined;
  /** The `Host` header, as sent. */
  host: string | undefined;
  /** True when a proxy says it forwarded the request (`Forwarded`, `X-Forwarded-For`). */
  forwarded: boolean;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (`::ffff:127.0.0.1`). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(bare)) return bare.startsWith("127.");
  if (!isIPv6(bare)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return (mapped[1] as string).startsWith("127.");
  return new URL(`http://[${bare}]/`).hostname === "[::1]";
}

/** True for a `Host` header naming this machine: localhost, 127.0.0.0/8 or ::1, any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  let name: string;
  try {
    name = new URL(`http://${host}/`).hostname;
  } catch {
    return false;
  }
  return name === "localhost" || name.endsWith(".localhost") || isLoopbackAddress(name);
}

/**
 * Whether a request may be served without `authorize`: only from this machine to this machine. The
 * peer must be loopback, and so must the listening address when the server says it; a request a proxy says it forwarded is
 * not (the proxy may sit on this machine and take requests from anywhere); and the `Host` header
 * must name this machine, so a web page whose DNS name was rebound to 127.0.0.1 cannot read it.
 * Unknown addresses are not loopback.
 */
export function servesWithoutAuthorize(request: RequestAddresses): boolean {
  return (
    isLoopbackAddress(request.remote) &&
    (request.local === undefined || isLoopbackAddress(request.local)) &&
    !request.forwarded &&
    isLoopbackHost(request.host)
  );
}
