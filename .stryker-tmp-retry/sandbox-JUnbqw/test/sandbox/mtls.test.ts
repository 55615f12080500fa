// @ts-nocheck
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Listener } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Pki } from "../mtls/pki";
import { tokenFor } from "./helpers";

/** A throwaway CA, a server certificate for 127.0.0.1 and client certificates, made with openssl. */
const dir = mkdtempSync(join(tmpdir(), "sandbox-mtls-"));
const file = (name: string) => join(dir, name);
const read = (name: string) => readFileSync(file(name), "utf8");
const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function ca(name: string) {
  openssl(
    "req",
    "-x509",
    ...EC,
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-subj",
    `/CN=${name}`,
    "-days",
    "2",
  );
}
function issue(name: string, subject: string, by: string, serial: string, ext?: string) {
  openssl("req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  const extArgs = ext ? ["-extfile", file(`${name}.ext`)] : [];
  if (ext) writeFileSync(file(`${name}.ext`), ext);
  openssl(
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${by}.crt`,
    "-CAkey",
    `${by}.key`,
    "-set_serial",
    serial,
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-sha256",
    ...extArgs,
  );
}

const sandbox = createSandbox();
let listener: Listener;

beforeAll(async () => {
  ca("ca");
  ca("stranger-ca");
  issue("server", "/CN=127.0.0.1", "ca", "100", "subjectAltName=IP:127.0.0.1\n");
  issue("registered", "/CN=partner-a/O=Sandbox Partner", "ca", "200");
  issue("unregistered", "/CN=partner-b/O=Sandbox Partner", "ca", "201");
  issue("stranger", "/CN=partner-a/O=Sandbox Partner", "stranger-ca", "200");
  await sandbox.registerCertificate({ certPem: read("registered.crt") });
  listener = await sandbox.listen({
    tls: { key: read("server.key"), cert: read("server.crt"), ca: read("ca.crt") },
  });
}, 20_000);

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** GET over HTTPS with an optional client certificate; resolves status and body. */
function get(path: string, client?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${listener.url}${path}`,
      {
        ca: read("ca.crt"),
        headers,
        ...(client ? { cert: read(`${client}.crt`), key: read(`${client}.key`) } : {}),
      },
      (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("mutual TLS", () => {
  it("authenticates a registered certificate as its partner, with authMethod MTLS", async () => {
    expect(listener.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { status, body } = await get("/v1/me", "registered");
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({
      partnerId: "ptn_sandbox",
      authMethod: "MTLS",
      scopes: [],
    });
    // Authorized by the record's capabilities, with no token and no Authorization header.
    expect((await get("/v1/orders?limit=1", "registered")).status).toBe(200);
  });

  it("answers a chained but unregistered certificate with 401 invalid_token", async () => {
    const { status, body } = await get("/v1/me", "unregistered");
    expect(status).toBe(401);
    expect(JSON.parse(body).code).toBe("invalid_token");
  });

  it("ignores an Authorization header on the mTLS host", async () => {
    const token = await tokenFor(sandbox);
    const res = await get("/v1/me", "unregistered", { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect((await get("/oauth2/token", "registered")).status).toBe(404);
    expect((await get("/v1/me", "registered", { authorization: "Bearer nonsense" })).status).toBe(
      200,
    );
  });

  it("answers 401 invalid_token when the partner's capabilities, its effective scopes, are empty", async () => {
    const partnerId = sandbox.fixtures.partnerId;
    sandbox.admin.setCapabilities(partnerId, []);
    try {
      const { status, body } = await get("/v1/me", "registered");
      expect([status, JSON.parse(body).code]).toEqual([401, "invalid_token"]);
    } finally {
      sandbox.admin.setCapabilities(partnerId, [
        "partner-api/orders:read",
        "partner-api/sites:read",
      ]);
    }
    expect((await get("/v1/me", "registered")).status).toBe(200);
  });

  it("refuses the handshake without a certificate or with one from another CA", async () => {
    await expect(get("/v1/ping")).rejects.toThrow();
    await expect(get("/v1/ping", "stranger")).rejects.toThrow();
    expect((await get("/v1/ping", "unregistered")).status).toBe(200);
  });

  it("refuses to register a private key or an expired certificate", async () => {
    await expect(sandbox.registerCertificate({ certPem: read("registered.key") })).rejects.toThrow(
      /private key/,
    );
    const late = createSandbox({ clock: "manual", startTime: Date.now() + 10 * 86_400_000 });
    await expect(late.registerCertificate({ certPem: read("registered.crt") })).rejects.toThrow(
      /expired/,
    );
  });

  it("refuses to register a signature weaker than SHA-256 or a chain longer than 4", async () => {
    const pki = new Pki();
    try {
      const register = (certPem: string) => sandbox.registerCertificate({ certPem });
      await expect(register(pki.client("sha1", "ec256", { digest: "sha1" }).cert)).rejects.toThrow(
        /SHA-256/,
      );
      // Root, three intermediates and the client certificate: five, one too many.
      pki.intermediate("i1");
      pki.intermediate("i2", "i1");
      pki.intermediate("i3", "i2");
      pki.issue("deep", "ec256", "/O=Sandbox Partner/CN=deep", { issuer: "i3" });
      const chain = (...names: string[]) => names.map((n) => pki.pem(n)).join("");
      await expect(register(chain("deep", "i3", "i2", "i1"))).rejects.toThrow(/at most 4/);
      await expect(register(chain("deep", "i3", "i2", "i1", "ca"))).rejects.toThrow(/at most 4/);
      await expect(register(chain("deep", "i2", "i3"))).rejects.toThrow(/issuer/);
      // Root, two intermediates and the client certificate: four, accepted.
      const ok = pki.issue("ok", "ec256", "/O=Sandbox Partner/CN=ok", { issuer: "i2" });
      const bound = await register(chain("ok", "i2", "i1", "ca"));
      expect(bound.subject).toContain("CN=ok");
      expect(bound).toEqual(await register(ok.cert));
    } finally {
      pki.dispose();
    }
  });
});
