import { describe, expect, it } from "vitest";
import {
  isLoopbackAddress,
  isLoopbackHost,
  servesWithoutAuthorize,
} from "../../../src/sync/status-page/access";

const local = { remote: "127.0.0.1", local: "127.0.0.1", host: "127.0.0.1:8080", forwarded: false };

describe("who the status page serves without authorize", () => {
  it("loopback addresses in every spelling, and nothing else", () => {
    for (const a of [
      "127.0.0.1",
      "127.8.9.1",
      "::1",
      "0:0:0:0:0:0:0:1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:127.10.20.30",
      "::1%lo0",
    ]) {
      expect(isLoopbackAddress(a), a).toBe(true);
    }
    for (const a of [
      undefined,
      "",
      "10.0.0.1",
      "128.0.0.1",
      "::2",
      "::ffff:10.0.0.1",
      "localhost",
      "fe80::1%lo",
      "1.127.0.0",
      // An address that ends like a mapped loopback one, and brackets out of place.
      "1::ffff:127.0.0.1",
      "::[1]",
      "[::]1]",
    ]) {
      expect(isLoopbackAddress(a), String(a)).toBe(false);
    }
  });

  it("a Host that names this machine: localhost, loopback addresses, any port", () => {
    for (const h of [
      "localhost",
      "localhost:80",
      "app.localhost",
      "127.0.0.1:3000",
      "[::1]:3000",
    ]) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of [undefined, "", "example.com", "127.0.0.1.nip.io", "evil.test:80", "a b"]) {
      expect(isLoopbackHost(h), String(h)).toBe(false);
    }
  });

  it("serves a request from this machine to this machine", () => {
    expect(servesWithoutAuthorize(local)).toBe(true);
    expect(
      servesWithoutAuthorize({ ...local, remote: "::1", local: "::1", host: "localhost" }),
    ).toBe(true);
    // A Fetch-style server that does not say where it listens: the peer decides.
    expect(servesWithoutAuthorize({ ...local, local: undefined })).toBe(true);
  });

  it("refuses a remote peer, a non-loopback listener, a forwarded request, a rebound Host", () => {
    expect(servesWithoutAuthorize({ ...local, remote: "192.0.2.7" })).toBe(false);
    expect(servesWithoutAuthorize({ ...local, remote: undefined })).toBe(false);
    expect(servesWithoutAuthorize({ ...local, local: "192.0.2.1" })).toBe(false);
    // A reverse proxy on this machine passing on a request from anywhere.
    expect(servesWithoutAuthorize({ ...local, forwarded: true })).toBe(false);
    // A web page whose name was rebound to 127.0.0.1 (DNS rebinding).
    expect(servesWithoutAuthorize({ ...local, host: "attacker.example:8080" })).toBe(false);
    expect(servesWithoutAuthorize({ ...local, host: undefined })).toBe(false);
  });
});
