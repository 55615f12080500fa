// @ts-nocheck
import { PartnerOrders } from "partner-orders";
import { createSandbox, type Listener, type Sandbox } from "partner-orders/testing";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { APIConnectionError, AuthenticationError, PartnerOrdersError } from "../../src/core/errors";
import { MtlsCertificateError } from "../../src/core/mtls";
import { type Issued, Pki } from "./pki";

/**
 * Mutual TLS end to end over real TLS on loopback, against the sandbox's mutual-TLS host
 * (API document, Authentication 2).
 */
let pki: Pki;
let sandbox: Sandbox;
let host: Listener;
let rsa: Issued;
let ec: Issued;
let other: Issued;

beforeAll(async () => {
  pki = new Pki();
  const server = pki.server();
  sandbox = createSandbox();
  host = await sandbox.listen({ tls: { key: server.key, cert: server.cert, ca: pki.ca.cert } });
  rsa = pki.client("partner-rsa", "rsa2048");
  ec = pki.client("partner-ec", "ec256");
  other = pki.client("other-partner", "ec256");
  await sandbox.registerCertificate({ certPem: rsa.cert });
  await sandbox.registerCertificate({ certPem: ec.cert });
  await sandbox.registerCertificate({
    certPem: other.cert,
    partnerId: sandbox.fixtures.otherPartnerId,
  });
});

afterAll(async () => {
  await sandbox.close();
  pki.dispose();
});

function client(material: Issued, extra: { logger?: Console } = {}): PartnerOrders {
  return new PartnerOrders({
    baseUrl: host.url,
    mtls: { ...material, ca: pki.ca.cert },
    maxRetries: 0,
    ...extra,
  });
}

const silent = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe("mutual TLS", () => {
  it("a registered RSA-2048 certificate is the credential: MTLS, empty scopes, orders readable, no token", async () => {
    const tokensBefore = sandbox.counters.tokenRequests;
    const partner = client(rsa);
    const me = await partner.me();
    expect(me.authMethod).toBe("MTLS");
    expect(me.partnerId).toBe(sandbox.fixtures.partnerId);
    expect(me.scopes).toEqual([]);
    const page = await partner.orders.list({ siteId: sandbox.fixtures.sites.main, limit: 3 });
    expect(page.data).toHaveLength(3);
    const order = await partner.orders.get(sandbox.fixtures.orders.tracking);
    expect(order.orderNumber).toBe(sandbox.fixtures.orders.tracking);
    await expect(partner.ping()).resolves.toBeUndefined();
    expect(sandbox.counters.tokenRequests).toBe(tokensBefore);
  });

  it("an EC P-256 certificate works the same way", async () => {
    await expect(client(ec).me()).resolves.toMatchObject({ authMethod: "MTLS" });
  });

  it("an encrypted key is opened with its passphrase", async () => {
    const partner = new PartnerOrders({
      baseUrl: host.url,
      mtls: {
        cert: rsa.cert,
        key: pki.encryptKey(rsa.key, "pass phrase"),
        passphrase: "pass phrase",
        ca: pki.ca.cert,
      },
    });
    await expect(partner.me()).resolves.toMatchObject({ authMethod: "MTLS" });
  });

  it("a certificate chained to the CA but not registered is 401 invalid_token", async () => {
    const stranger = pki.client("stranger");
    const error = await client(stranger)
      .me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_token" });
  });

  it("without a certificate the handshake fails, for GET /v1/ping too", async () => {
    // A client that trusts the server but has no certificate of its own.
    const agent = new Agent({ connect: { ca: pki.ca.cert } });
    const noCertificate = new PartnerOrders({
      baseUrl: host.url,
      accessToken: "not-a-credential-here",
      maxRetries: 0,
      fetch: ((request: Request) =>
        undiciFetch(request.url, {
          method: request.method,
          headers: [...request.headers],
          dispatcher: agent,
        })) as unknown as typeof fetch,
    });
    await expect(noCertificate.ping()).rejects.toBeInstanceOf(APIConnectionError);
    await expect(noCertificate.me()).rejects.toBeInstanceOf(APIConnectionError);
    await agent.close();
  });

  it("an expired certificate is refused before anything is sent", async () => {
    const expired = pki.expiredClient("expired-partner");
    const sent = sandbox.requests.length;
    const error = await client(expired)
      .me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MtlsCertificateError);
    expect(error).toMatchObject({ reason: "expired" });
    expect(sandbox.requests.length).toBe(sent);
  });

  it("a certificate expiring within 30 days is one warning in the log, without the key", async () => {
    const logger = silent();
    const partner = client(ec, { logger: logger as unknown as Console });
    await partner.me();
    await partner.sites.list();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const line = JSON.stringify(logger.warn.mock.calls[0]);
    expect(line).toContain("expires in 2 day");
    expect(line).toContain("CN=partner-ec");
    expect(line).not.toContain("PRIVATE KEY");
    expect(line).not.toContain(ec.key.split("\n")[1]);
  });

  it("the certificate is replaced on a live client; a bad replacement leaves the old one in use", async () => {
    const partner = client(rsa);
    expect((await partner.me()).partnerId).toBe(sandbox.fixtures.partnerId);

    const info = await partner.setMtlsCertificate({ ...other, ca: pki.ca.cert });
    expect(info.subject).toContain("CN=other-partner");
    expect((await partner.me()).partnerId).toBe(sandbox.fixtures.otherPartnerId);

    const weak = pki.client("weak-rsa", "rsa1024");
    await expect(partner.setMtlsCertificate({ ...weak, ca: pki.ca.cert })).rejects.toMatchObject({
      reason: "weak_key",
    });
    expect((await partner.me()).partnerId).toBe(sandbox.fixtures.otherPartnerId);
  });

  it("setMtlsCertificate on a bearer client is a clear error", async () => {
    const bearer = new PartnerOrders({ baseUrl: host.url, accessToken: "t" });
    await expect(bearer.setMtlsCertificate(rsa)).rejects.toThrow(/created with \{ mtls \}/);
  });

  it("mtls with a custom fetch is refused at construction", () => {
    expect(
      () => new PartnerOrders({ baseUrl: host.url, mtls: rsa, fetch: globalThis.fetch }),
    ).toThrow(PartnerOrdersError);
  });
});
