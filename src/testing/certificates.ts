/**
 * The registration checks staff apply to a partner's client certificate (API document, Mutual TLS:
 * certificate requirements, and Limits): PEM certificates only, never a private key; the client
 * certificate first, then each issuer in turn; chain length at most 4, the root counted even when
 * not sent; SHA-256 or stronger signatures; RSA-2048 or stronger, or ECDSA P-256/P-384 keys; not
 * already expired at registration.
 */

type X509 = import("node:crypto").X509Certificate;

const MAX_CHAIN_LENGTH = 4;

/** Signature algorithms accepted ("SHA-256 or stronger"), by OID. */
const STRONG_SIGNATURES = new Set([
  "1.2.840.113549.1.1.11", // sha256WithRSAEncryption
  "1.2.840.113549.1.1.12", // sha384WithRSAEncryption
  "1.2.840.113549.1.1.13", // sha512WithRSAEncryption
  "1.2.840.10045.4.3.2", // ecdsa-with-SHA256
  "1.2.840.10045.4.3.3", // ecdsa-with-SHA384
  "1.2.840.10045.4.3.4", // ecdsa-with-SHA512
]);
const RSASSA_PSS = "1.2.840.113549.1.1.10";
/** DER of the SHA-256, SHA-384 and SHA-512 OIDs: RSASSA-PSS names its hash in its parameters. */
const STRONG_PSS_HASHES = [
  "0609608648016503040201",
  "0609608648016503040202",
  "0609608648016503040203",
];

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
    if (!strongSignature(cert.raw))
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

/**
 * Whether the certificate's outer signatureAlgorithm (RFC 5280 4.1: Certificate ::= SEQUENCE {
 * tbsCertificate, signatureAlgorithm, signatureValue }) hashes with SHA-256 or stronger. Node's
 * X509Certificate does not expose the algorithm, so it is read from the DER.
 */
function strongSignature(der: Uint8Array): boolean {
  try {
    const certificate = element(der, 0);
    const tbs = element(der, certificate.start);
    const algorithm = element(der, tbs.end);
    const oid = element(der, algorithm.start);
    if (oid.tag !== 0x06) return false;
    const name = decodeOid(der.subarray(oid.start, oid.end));
    if (STRONG_SIGNATURES.has(name)) return true;
    // Without parameters RSASSA-PSS hashes with SHA-1 (RFC 4055).
    const params = Buffer.from(der.subarray(oid.end, algorithm.end)).toString("hex");
    return name === RSASSA_PSS && STRONG_PSS_HASHES.some((h) => params.includes(h));
  } catch {
    return false;
  }
}

/** One DER element: its tag and where its contents start and end. */
function element(der: Uint8Array, at: number): { tag: number; start: number; end: number } {
  const tag = der[at];
  let length = der[at + 1];
  if (tag === undefined || length === undefined) throw new RangeError("truncated DER");
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4) throw new RangeError("unsupported DER length");
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[start++] ?? 0);
  }
  if (start + length > der.length) throw new RangeError("truncated DER");
  return { tag, start, end: start + length };
}

function decodeOid(bytes: Uint8Array): string {
  const first = bytes[0] ?? 0;
  const head = Math.min(2, Math.floor(first / 40));
  const parts = [head, first - head * 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}
