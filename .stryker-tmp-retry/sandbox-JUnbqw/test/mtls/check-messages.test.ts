// @ts-nocheck
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPartnerOrdersError } from "../../src/core/errors";
import { checkMtlsCertificate, MtlsCertificateError } from "../../src/core/mtls";
import type { MtlsOptions } from "../../src/core/options";
import { type Issued, Pki } from "./pki";

/**
 * What the pre-use check of a client certificate tells a partner (API document, Mutual TLS:
 * certificate requirements): the reason, and a message naming the certificate at fault by its place
 * in `mtls.cert`, subject and serial, and what the service requires instead.
 */
let pki: Pki;
beforeAll(() => {
  pki = new Pki();
});
afterAll(() => pki.dispose());

const caExt = ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"];
const clientExt = ["extendedKeyUsage=clientAuth"];

async function refusal(material: MtlsOptions, now?: number): Promise<MtlsCertificateError> {
  const error = await checkMtlsCertificate(material, now === undefined ? {} : { now }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MtlsCertificateError);
  return error as MtlsCertificateError;
}

/** How the messages name the client certificate, from its own PEM; `The` at a sentence's start. */
function named(issued: Issued, subject: string, article: "the" | "The" = "the"): string {
  const { serialNumber } = new X509Certificate(issued.cert);
  return `${article} client certificate (subject "${subject}", serial ${serialNumber})`;
}

describe("the error", () => {
  it("is a PartnerOrdersError named MtlsCertificateError, so guards across package copies work", async () => {
    const { key } = pki.client("named");
    const error = await refusal({ cert: "no certificate here", key });
    expect(error.name).toBe("MtlsCertificateError");
    expect(isPartnerOrdersError(error)).toBe(true);
  });
});

describe("unreadable material", () => {
  it("text without a certificate", async () => {
    const { key } = pki.client("no-pem");
    const error = await refusal({ cert: "not a certificate", key });
    expect(error.message).toBe("mtls.cert holds no PEM certificate (-----BEGIN CERTIFICATE-----).");
  });

  it("a PEM block that is not a certificate is named by its place", async () => {
    const { cert, key } = pki.client("garbled");
    const garbled =
      "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n";
    const error = await refusal({ cert: cert + garbled, key });
    expect(error.reason).toBe("unreadable_certificate");
    expect(error.message).toBe("Certificate 2 of mtls.cert is not a readable X.509 certificate.");
  });

  it("a key that cannot be read says to check the passphrase", async () => {
    const { cert } = pki.client("no-key");
    const error = await refusal({ cert, key: "-----BEGIN PRIVATE KEY-----\nnope\n" });
    expect(error.message).toBe(
      "mtls.key could not be read as a PEM private key (is the passphrase right?).",
    );
  });

  it("a key that is not the certificate's names the certificate by subject and serial", async () => {
    const mine = pki.client("mine");
    const theirs = pki.client("theirs");
    const error = await refusal({ cert: mine.cert, key: theirs.key });
    expect(error.message).toBe(
      `mtls.key is not the private key of ${named(mine, "O=Sandbox Partner, CN=mine")}: the handshake would fail.`,
    );
  });
});

describe("the chain in mtls.cert", () => {
  it("out of order: the message names the pair that does not match", async () => {
    pki.intermediate("upper");
    pki.intermediate("lower", "upper");
    const leaf = pki.issue("chained", "ec256", "/CN=chained", { issuer: "lower", ext: clientExt });
    // The leaf and "lower" match; "lower" was issued by "upper", not by the root.
    const error = await refusal({
      cert: leaf.cert + pki.pem("lower") + pki.ca.cert,
      key: leaf.key,
    });
    expect(error.reason).toBe("chain_out_of_order");
    expect(error.message).toBe(
      "mtls.cert must list the client certificate first, then each issuer in turn; certificate 3 did not issue certificate 2.",
    );
  });

  it("an issuer with the right key but another name did not issue the certificate", async () => {
    pki.intermediate("real-issuer");
    // Same key as "real-issuer", another subject: the signature checks out, the names do not.
    pki.issue("renamed-issuer", "ec256", "/CN=renamed-issuer", {
      ext: caExt,
      keyOf: "real-issuer",
    });
    const leaf = pki.issue("under-real", "ec256", "/CN=under-real", {
      issuer: "real-issuer",
      ext: clientExt,
    });
    const error = await refusal({ cert: leaf.cert + pki.pem("renamed-issuer"), key: leaf.key });
    expect(error.reason).toBe("chain_out_of_order");
    expect(error.message).toContain("certificate 2 did not issue certificate 1");
  });

  it("a last certificate signed by its own key under another name is not a root: the root still counts", async () => {
    // An intermediate holding the root's key: it verifies under its own key, yet its issuer is the root.
    pki.issue("root-keyed", "ec256", "/CN=root-keyed", { ext: caExt, keyOf: "ca" });
    const leaf = pki.issue("under-root-keyed", "ec256", "/CN=under-root-keyed", {
      issuer: "root-keyed",
      ext: clientExt,
    });
    const info = await checkMtlsCertificate({
      cert: leaf.cert + pki.pem("root-keyed"),
      key: leaf.key,
    });
    expect(info.chainLength).toBe(3);
  });

  it("an intermediate at fault is named by its place and subject, and capitalised", async () => {
    pki.issue("weak-issuer", "rsa1024", "/O=Weak Issuer Ltd/CN=weak-issuer", { ext: caExt });
    const leaf = pki.issue("under-weak", "ec256", "/CN=under-weak", {
      issuer: "weak-issuer",
      ext: clientExt,
    });
    const error = await refusal({ cert: leaf.cert + pki.pem("weak-issuer"), key: leaf.key });
    expect(error.reason).toBe("weak_key");
    expect(error.message).toBe(
      'Certificate 2 of mtls.cert ("O=Weak Issuer Ltd, CN=weak-issuer") has an RSA-1024 key; the service requires RSA-2048 or stronger, or ECDSA P-256/P-384.',
    );
  });
});

describe("keys", () => {
  it("an RSA key below 2048 bits says how many it has", async () => {
    const weak = pki.client("rsa-small", "rsa1024");
    const error = await refusal(weak);
    expect(error.message).toBe(
      `${named(weak, "O=Sandbox Partner, CN=rsa-small", "The")} has an RSA-1024 key; the service requires RSA-2048 or stronger, or ECDSA P-256/P-384.`,
    );
  });

  it("a 2048-bit key of another kind than RSA (DSA) is refused, named by its kind", async () => {
    const dsa = pki.client("dsa-partner", "dsa2048");
    const error = await refusal(dsa);
    expect(error.reason).toBe("weak_key");
    expect(error.message).toContain(" has a dsa key; the service requires RSA-2048 or stronger");
  });

  it("an EC key on a curve other than P-256 or P-384 names the curve", async () => {
    const error = await refusal(pki.client("p521-partner", "ec521"));
    expect(error.message).toContain(" has an EC key on secp521r1; the service requires");
  });

  it("EC P-256 and RSA-2048 keys pass", async () => {
    await expect(checkMtlsCertificate(pki.client("p256-partner", "ec256"))).resolves.toBeDefined();
    await expect(checkMtlsCertificate(pki.client("rsa-partner", "rsa2048"))).resolves.toBeDefined();
  });
});

describe("signatures weaker than SHA-256", () => {
  beforeAll(() => {
    pki.issue("rsa-issuer", "rsa2048", "/CN=rsa-issuer", { ext: caExt });
  });

  it.each([
    ["rsa-issuer", "md5", "md5WithRSAEncryption"],
    ["rsa-issuer", "sha1", "sha1WithRSAEncryption"],
    ["rsa-issuer", "sha224", "sha224WithRSAEncryption"],
    ["ca", "sha1", "ecdsa-with-SHA1"],
    ["ca", "sha224", "ecdsa-with-SHA224"],
  ])("issued by %s with %s: named %s", async (issuer, digest, algorithm) => {
    const name = `${issuer}-${digest}`;
    const leaf = pki.issue(name, "ec256", `/CN=${name}`, { issuer, digest, ext: clientExt });
    const error = await refusal(leaf);
    expect(error.reason).toBe("weak_signature");
    expect(error.message).toBe(
      `${named(leaf, `CN=${name}`, "The")} is signed with ${algorithm}; the service requires SHA-256 or stronger.`,
    );
  });

  it("an algorithm without a common name is given by its OID (RSASSA-PSS over SHA-1)", async () => {
    const leaf = pki.issue("pss-sha1", "ec256", "/CN=pss-sha1", {
      issuer: "rsa-issuer",
      digest: "sha1",
      sigopt: ["rsa_padding_mode:pss"],
      ext: clientExt,
    });
    const error = await refusal(leaf);
    expect(error.reason).toBe("weak_signature");
    expect(error.message).toContain(
      " is signed with algorithm 1.2.840.113549.1.1.10; the service requires SHA-256 or stronger.",
    );
  });
});

describe("validity", () => {
  it("at its last instant a certificate has expired; at its first it is valid", async () => {
    const material = pki.client("edges");
    const { validFrom, validTo } = new X509Certificate(material.cert);
    const from = Date.parse(validFrom);
    const to = Date.parse(validTo);
    const expired = await refusal(material, to);
    expect(expired.reason).toBe("expired");
    expect(expired.message).toBe(
      `${named(material, "O=Sandbox Partner, CN=edges", "The")} expired on ${new Date(to).toISOString()}; register a new one and use it instead.`,
    );
    await expect(checkMtlsCertificate(material, { now: from })).resolves.toMatchObject({
      validFrom: new Date(from),
      validTo: new Date(to),
    });
    const early = await refusal(material, from - 1);
    expect(early.reason).toBe("not_yet_valid");
    expect(early.message).toBe(
      `${named(material, "O=Sandbox Partner, CN=edges", "The")} is not valid before ${new Date(from).toISOString()}.`,
    );
  });
});
