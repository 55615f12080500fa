// @ts-nocheck
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMtlsCertificate, MtlsCertificateError, mtlsPolicy } from "../../src/core/mtls";
import { Pki } from "./pki";

/** The pre-use checks of a client certificate (API document, Mutual TLS: certificate requirements). */
let pki: Pki;
beforeAll(() => {
  pki = new Pki();
});
afterAll(() => pki.dispose());

async function reasonOf(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MtlsCertificateError);
  const { reason, message } = error as MtlsCertificateError;
  return { reason, message };
}

describe("checkMtlsCertificate", () => {
  it("accepts RSA-2048 and EC P-256 certificates signed with SHA-256, and says what it saw", async () => {
    for (const kind of ["rsa2048", "ec256"] as const) {
      const material = pki.client(`ok-${kind}`, kind);
      const info = await checkMtlsCertificate(material);
      expect(info.subject).toContain(`CN=ok-${kind}`);
      expect(info.serialNumber).toMatch(/^[0-9A-F]+$/);
      expect(info.chainLength).toBe(2);
      expect(info.validTo.getTime()).toBeGreaterThan(Date.now());
    }
  });

  it("accepts buffers as well as strings, and an encrypted key with its passphrase", async () => {
    const { cert, key } = pki.client("buffers");
    const encrypted = pki.encryptKey(key, "correct horse");
    const info = await checkMtlsCertificate({
      cert: Buffer.from(cert),
      key: new TextEncoder().encode(encrypted),
      passphrase: "correct horse",
    });
    expect(info.subject).toContain("CN=buffers");
  });

  it("refuses a wrong passphrase without echoing the key", async () => {
    const { cert, key } = pki.client("passphrase");
    const encrypted = pki.encryptKey(key, "right");
    const { reason, message } = await reasonOf(
      checkMtlsCertificate({ cert, key: encrypted, passphrase: "wrong" }),
    );
    expect(reason).toBe("unreadable_key");
    expect(message).not.toContain("PRIVATE KEY");
    expect(message).not.toContain(encrypted.split("\n")[1]);
  });

  it("refuses a key that is not the certificate's", async () => {
    const a = pki.client("mine");
    const b = pki.client("theirs", "ec256");
    const { reason, message } = await reasonOf(checkMtlsCertificate({ cert: a.cert, key: b.key }));
    expect(reason).toBe("key_mismatch");
    expect(message).toContain("CN=mine");
    expect(message).not.toContain(b.key.split("\n")[1]);
  });

  it("refuses text that holds no certificate", async () => {
    const { key } = pki.client("nocert");
    const { reason } = await reasonOf(checkMtlsCertificate({ cert: "not a certificate", key }));
    expect(reason).toBe("unreadable_certificate");
  });

  it("refuses RSA-1024 and EC P-521 keys", async () => {
    expect((await reasonOf(checkMtlsCertificate(pki.client("rsa1024", "rsa1024")))).reason).toBe(
      "weak_key",
    );
    const p521 = await reasonOf(checkMtlsCertificate(pki.client("p521", "ec521")));
    expect(p521.reason).toBe("weak_key");
    expect(p521.message).toContain("secp521r1");
  });

  it("refuses a certificate signed with SHA-1", async () => {
    const { reason, message } = await reasonOf(
      checkMtlsCertificate(pki.client("sha1", "ec256", { digest: "sha1" })),
    );
    expect(reason).toBe("weak_signature");
    // The issuing CA holds an EC key, so SHA-1 here is ecdsa-with-SHA1.
    expect(message).toContain("ecdsa-with-SHA1");
  });

  it("accepts SHA-384 and SHA-512 signatures", async () => {
    for (const digest of ["sha384", "sha512"]) {
      await expect(
        checkMtlsCertificate(pki.client(`digest-${digest}`, "ec256", { digest })),
      ).resolves.toMatchObject({ chainLength: 2 });
    }
  });

  it("refuses an expired certificate (made with openssl ca and dates in the past)", async () => {
    const { reason, message } = await reasonOf(checkMtlsCertificate(pki.expiredClient("expired")));
    expect(reason).toBe("expired");
    expect(message).toContain("2020-02-01");
  });

  it("reads validity against the clock it is given", async () => {
    const material = pki.client("clocked");
    const info = await checkMtlsCertificate(material);
    const after = await reasonOf(
      checkMtlsCertificate(material, { now: info.validTo.getTime() + 1 }),
    );
    expect(after.reason).toBe("expired");
    const before = await reasonOf(
      checkMtlsCertificate(material, { now: info.validFrom.getTime() - 1 }),
    );
    expect(before.reason).toBe("not_yet_valid");
  });

  it("counts the chain up to the root and refuses more than four certificates", async () => {
    pki.intermediate("int1");
    pki.intermediate("int2", "int1");
    pki.intermediate("int3", "int2");
    const read = (name: string) => pki.pem(name);
    const leafUnder = (issuer: string, name: string) =>
      pki.issue(name, "ec256", `/CN=${name}`, { issuer, ext: ["extendedKeyUsage=clientAuth"] });

    // leaf, int2, int1 (+ root not sent) = 4: the most the service accepts.
    const four = leafUnder("int2", "leaf4");
    const ok = await checkMtlsCertificate({
      cert: four.cert + read("int2") + read("int1"),
      key: four.key,
    });
    expect(ok.chainLength).toBe(mtlsPolicy.maxChainLength);

    // leaf, int3, int2, int1 (+ root) = 5.
    const five = leafUnder("int3", "leaf5");
    const tooLong = await reasonOf(
      checkMtlsCertificate({
        cert: five.cert + read("int3") + read("int2") + read("int1"),
        key: five.key,
      }),
    );
    expect(tooLong.reason).toBe("chain_too_long");
    expect(tooLong.message).toContain("5 certificates");

    // Sending the root too does not count it twice.
    const withRoot = await checkMtlsCertificate({
      cert: four.cert + read("int2") + read("int1") + pki.ca.cert,
      key: four.key,
    });
    expect(withRoot.chainLength).toBe(4);
  });

  it("refuses intermediates listed out of order", async () => {
    pki.intermediate("ord1");
    pki.intermediate("ord2", "ord1");
    const leaf = pki.issue("ordleaf", "ec256", "/CN=ordleaf", { issuer: "ord2" });
    const read = (name: string) => pki.pem(name);
    const { reason } = await reasonOf(
      checkMtlsCertificate({ cert: leaf.cert + read("ord1") + read("ord2"), key: leaf.key }),
    );
    expect(reason).toBe("chain_out_of_order");
  });
});
