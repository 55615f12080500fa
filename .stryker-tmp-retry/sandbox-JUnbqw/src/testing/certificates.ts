/**
 * The registration checks staff apply to a partner's client certificate (API document, Mutual TLS:
 * certificate requirements, and Limits): PEM certificates only, never a private key; the client
 * certificate first, then each issuer in turn; chain length at most 4, the root counted even when
 * not sent; SHA-256 or stronger signatures; RSA-2048 or stronger, or ECDSA P-256/P-384 keys; not
 * already expired at registration.
 */
// @ts-nocheck


import { isStrongSignature, signatureAlgorithm } from "../internal/x509";

type X509 = import("node:crypto").X509Certificate;

const MAX_CHAIN_LENGTH = 4;

/** Checks `certPem` as staff registration does; returns the client certificate to bind. */
export async function checkRegistration(certPem: string, now: number): Promise<X509> {
  if (/PRIVATE KEY/.test(certPem))
    throw new Error("Send only the PEM certificate; the private key never leaves the partner");
  const { X509Certificate } = await import("node:crypto");
  const blocks = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  const certs = (blocks ?? [certPem]).map((block) => new X509Certificate(block));
  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i] as X509;
    const parent = certs[i + 1] as X509;
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey))
      throw new Error("List the client certificate first, then each issuer in turn");
  }
  const last = certs[certs.length - 1] as X509;
  const endsAtRoot = last.checkIssued(last) && last.verify(last.publicKey);
  const chainLength = certs.length + (endsAtRoot ? 0 : 1);
  if (chainLength > MAX_CHAIN_LENGTH)
    throw new Error(`The chain has ${chainLength} certificates; at most ${MAX_CHAIN_LENGTH}`);
  for (const cert of certs) {
    if (Date.parse(cert.validTo) <= now) throw new Error("The certificate has already expired");
    if (!isStrongSignature(signatureAlgorithm(cert.raw)))
      throw new Error("The certificate must be signed with SHA-256 or stronger");
    const key = cert.publicKey.asymmetricKeyDetails ?? {};
    const type = cert.publicKey.asymmetricKeyType;
    const strong =
      (type === "rsa" && (key.modulusLength ?? 0) >= 2048) ||
      (type === "ec" && ["prime256v1", "secp384r1"].includes(key.namedCurve ?? ""));
    if (!strong)
      throw new Error("The certificate key must be RSA-2048 or stronger, or ECDSA P-256/P-384");
  }
  return certs[0] as X509;
}
