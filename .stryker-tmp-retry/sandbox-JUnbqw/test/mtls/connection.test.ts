// @ts-nocheck
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Log } from "../../src/core/logger";
import {
  checkMtlsCertificate,
  type MtlsCertificateInfo,
  MtlsConnection,
} from "../../src/core/mtls";
import type { MtlsOptions } from "../../src/core/options";
import { FakeClock } from "../support/fake-clock";
import { type Issued, Pki } from "./pki";

/**
 * The client's HTTP path on the mutual-TLS host (API document, Authentication 2), against a bare
 * HTTPS server on loopback that asks for a client certificate: what a request carries there and
 * back, the expiry notice (no notification is sent by the service) and replacing the certificate.
 */
interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Common name of the client certificate presented at the handshake. */
  peer: string;
}

const DAY_MS = 86_400_000;
let pki: Pki;
let server: Server;
let origin: string;
let first: Issued;
let second: Issued;
let firstInfo: MtlsCertificateInfo;
const seen: Seen[] = [];

beforeAll(async () => {
  pki = new Pki();
  const tls = pki.server();
  first = pki.client("first-partner");
  second = pki.client("second-partner", "rsa2048");
  firstInfo = await checkMtlsCertificate(first);
  server = createServer(
    { key: tls.key, cert: tls.cert, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const path = req.url ?? "";
        seen.push({
          method: req.method ?? "",
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          peer: String((req.socket as TLSSocket).getPeerCertificate().subject.CN),
        });
        if (path === "/v1/moved") {
          res.writeHead(302, { location: `${origin}/v1/elsewhere` }).end();
        } else if (path.startsWith("/v1/status/")) {
          res.writeHead(Number(path.slice("/v1/status/".length))).end();
        } else {
          res.writeHead(201, "Made Here", { "content-type": "application/json", "x-answer": "42" });
          res.end(req.method === "HEAD" ? undefined : JSON.stringify({ ok: true }));
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  pki.dispose();
});

/** A Log that records its warnings. */
function recordingLog(): Log & { warnings: [string, Record<string, unknown> | undefined][] } {
  const warnings: [string, Record<string, unknown> | undefined][] = [];
  return {
    warnings,
    enabled: () => true,
    debug: () => {},
    info: () => {},
    warn: (message, fields) => warnings.push([message, fields]),
    error: () => {},
  };
}

/** A connection presenting `material`, on a fake clock `at` ms after the first certificate's start. */
function connect(material: Issued = first, at = DAY_MS / 2) {
  const clock = new FakeClock(firstInfo.validFrom.getTime() + at);
  const log = recordingLog();
  const mtls: MtlsOptions = { ...material, ca: pki.ca.cert };
  return { connection: new MtlsConnection(mtls, clock, log), clock, log };
}

function last(): Seen {
  return seen[seen.length - 1] as Seen;
}

describe("requests on the mutual-TLS host", () => {
  it("a POST carries its method, headers and body; the answer keeps its status, text and headers", async () => {
    const { connection } = connect();
    const response = await connection.fetch(
      new Request(`${origin}/v1/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-correlation-id": "checkout-7" },
        body: JSON.stringify({ siteId: 7 }),
        redirect: "manual",
      }),
    );
    expect(last()).toMatchObject({
      method: "POST",
      path: "/v1/orders",
      body: '{"siteId":7}',
      peer: "first-partner",
    });
    expect(last().headers).toMatchObject({ "x-correlation-id": "checkout-7" });
    expect(last().headers.authorization).toBeUndefined();
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made Here");
    expect(response.headers.get("x-answer")).toBe("42");
    expect(await response.json()).toEqual({ ok: true });
  });

  it("GET and HEAD are sent without a body", async () => {
    const { connection } = connect();
    for (const method of ["GET", "HEAD"]) {
      const response = await connection.fetch(new Request(`${origin}/v1/me`, { method }));
      expect(response.status).toBe(201);
      expect(last()).toMatchObject({ method, body: "" });
      expect(last().headers["content-length"]).toBeUndefined();
      expect(last().headers["transfer-encoding"]).toBeUndefined();
    }
  });

  it.each([204, 205, 304])("a %s answer has no body", async (status) => {
    const { connection } = connect();
    const response = await connection.fetch(new Request(`${origin}/v1/status/${status}`));
    expect(response.status).toBe(status);
    expect(response.body).toBeNull();
  });

  it("a redirect is handed back, not followed: the certificate is presented to the configured host only", async () => {
    const { connection } = connect();
    const before = seen.length;
    const response = await connection.fetch(
      new Request(`${origin}/v1/moved`, { redirect: "manual" }),
    );
    expect(response.status).toBe(302);
    expect(seen.slice(before).map((s) => s.path)).toEqual(["/v1/moved"]);
  });

  it("an aborted request is abandoned", async () => {
    const { connection } = connect();
    const controller = new AbortController();
    controller.abort(new Error("partner gave up"));
    const before = seen.length;
    await expect(
      connection.fetch(new Request(`${origin}/v1/me`, { signal: controller.signal })),
    ).rejects.toThrow();
    expect(seen.length).toBe(before);
  });

  it("an encrypted key is opened with its passphrase", async () => {
    const clock = new FakeClock(firstInfo.validFrom.getTime() + DAY_MS / 2);
    const connection = new MtlsConnection(
      {
        cert: first.cert,
        key: pki.encryptKey(first.key, "pass phrase"),
        passphrase: "pass phrase",
        ca: [pki.ca.cert],
      },
      clock,
      recordingLog(),
    );
    const response = await connection.fetch(new Request(`${origin}/v1/me`));
    expect(response.status).toBe(201);
    expect(last().peer).toBe("first-partner");
  });

  it("without the CA given, the server's certificate is not trusted and nothing is answered", async () => {
    const clock = new FakeClock(firstInfo.validFrom.getTime() + DAY_MS / 2);
    const connection = new MtlsConnection(first, clock, recordingLog());
    await expect(connection.fetch(new Request(`${origin}/v1/me`))).rejects.toThrow();
  });
});

describe("a certificate near or past its expiry", () => {
  it("within 30 days of its end: one warning per certificate, with days left, subject and serial", async () => {
    // The test certificates are valid for 2 days: half a day in, 1.5 days are left.
    const { connection, log } = connect(first, DAY_MS / 2);
    await connection.fetch(new Request(`${origin}/v1/me`));
    await connection.fetch(new Request(`${origin}/v1/sites`));
    expect(log.warnings).toHaveLength(1);
    const [message, fields] = log.warnings[0] as [string, Record<string, unknown>];
    expect(message).toBe(
      `the mutual-TLS client certificate expires in 2 day(s), on ${firstInfo.validTo.toISOString()}; ` +
        "register its replacement and call client.setMtlsCertificate()",
    );
    expect(fields).toEqual({
      subject: firstInfo.subject.split("\n").join(", "),
      serialNumber: firstInfo.serialNumber,
    });
    expect(JSON.stringify(log.warnings)).not.toContain(first.key.split("\n")[1]);
  });

  it("the warning starts when fewer than 30 days are left", async () => {
    const long = pki.issue("long-lived", "ec256", "/CN=long-lived", {
      days: 90,
      ext: ["extendedKeyUsage=clientAuth"],
    });
    const info = await checkMtlsCertificate(long);
    const warnedAt = async (left: number) => {
      const clock = new FakeClock(info.validTo.getTime() - left);
      const log = recordingLog();
      const connection = new MtlsConnection({ ...long, ca: pki.ca.cert }, clock, log);
      await connection.fetch(new Request(`${origin}/v1/me`));
      return log.warnings.map(([message]) => message);
    };
    expect(await warnedAt(30 * DAY_MS)).toEqual([]);
    expect(await warnedAt(30 * DAY_MS - 1)).toEqual([
      expect.stringContaining("expires in 30 day(s)"),
    ]);
  });

  it("a replacement is warned about again", async () => {
    const { connection, log } = connect(first, DAY_MS / 2);
    await connection.fetch(new Request(`${origin}/v1/me`));
    await connection.replace({ ...second, ca: pki.ca.cert });
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(log.warnings).toHaveLength(2);
    expect(last().peer).toBe("second-partner");
  });

  it("expiring in exactly one day says 1 day", async () => {
    const { connection, log } = connect(
      first,
      firstInfo.validTo.getTime() - firstInfo.validFrom.getTime() - DAY_MS,
    );
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(log.warnings[0]?.[0]).toContain("expires in 1 day(s)");
  });

  it("expiring at its last millisecond is still used, with the warning", async () => {
    const span = firstInfo.validTo.getTime() - firstInfo.validFrom.getTime();
    const { connection, log } = connect(first, span - 1);
    const response = await connection.fetch(new Request(`${origin}/v1/me`));
    expect(response.status).toBe(201);
    expect(log.warnings[0]?.[0]).toContain("expires in 1 day(s)");
  });

  it("once expired on a live client, requests are refused before anything is sent", async () => {
    const { connection, clock } = connect(first, DAY_MS / 2);
    await connection.fetch(new Request(`${origin}/v1/me`));
    clock.advance(firstInfo.validTo.getTime() - clock.now());
    const before = seen.length;
    const error = await connection.fetch(new Request(`${origin}/v1/me`)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "MtlsCertificateError",
      reason: "expired",
      message:
        `The client certificate (serial ${firstInfo.serialNumber}) expired on ${firstInfo.validTo.toISOString()}; ` +
        "register a new one and pass it to client.setMtlsCertificate().",
    });
    expect(seen.length).toBe(before);
  });
});

describe("replacing the certificate", () => {
  it("a replacement that passes is used from the next request and its details returned", async () => {
    const { connection } = connect();
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(last().peer).toBe("first-partner");
    const info = await connection.replace({ ...second, ca: pki.ca.cert });
    expect(info.subject).toContain("CN=second-partner");
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(last().peer).toBe("second-partner");
  });

  it("a replacement before the first request is the one presented", async () => {
    const { connection } = connect();
    await connection.replace({ ...second, ca: pki.ca.cert });
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(last().peer).toBe("second-partner");
  });

  it("a replacement that fails its checks leaves the certificate in use", async () => {
    const { connection } = connect();
    await connection.fetch(new Request(`${origin}/v1/me`));
    const weak = pki.client("weak-partner", "rsa1024");
    await expect(connection.replace({ ...weak, ca: pki.ca.cert })).rejects.toMatchObject({
      reason: "weak_key",
    });
    await connection.fetch(new Request(`${origin}/v1/me`));
    expect(last().peer).toBe("first-partner");
  });
});
