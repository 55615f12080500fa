/**
 * The signature-algorithm rule of the API document (Mutual TLS, certificate requirements: "SHA-256
 * or stronger"), shared by the client's pre-use check and the sandbox's registration check. Node 20's
 * X509Certificate does not expose the signature algorithm, so it is read from the DER.
 */

/** Signature algorithms accepted, by OID. */
const strongSignatures = new Set([
  "1.2.840.113549.1.1.11", // sha256WithRSAEncryption
  "1.2.840.113549.1.1.12", // sha384WithRSAEncryption
  "1.2.840.113549.1.1.13", // sha512WithRSAEncryption
  "1.2.840.10045.4.3.2", // ecdsa-with-SHA256
  "1.2.840.10045.4.3.3", // ecdsa-with-SHA384
  "1.2.840.10045.4.3.4", // ecdsa-with-SHA512
]);
const rsassaPss = "1.2.840.113549.1.1.10";
/** DER of the SHA-256, SHA-384 and SHA-512 OIDs, looked for in RSASSA-PSS parameters. */
const strongPssHashes = [
  "0609608648016503040201",
  "0609608648016503040202",
  "0609608648016503040203",
];

export interface SignatureAlgorithm {
  oid: string;
  /** The algorithm's parameters, DER as lowercase hex. */
  paramsHex: string;
}

/** Whether `algorithm` hashes with SHA-256 or stronger; false when it could not be read. */
export function isStrongSignature(algorithm: SignatureAlgorithm | undefined): boolean {
  if (!algorithm) return false;
  if (strongSignatures.has(algorithm.oid)) return true;
  // RSASSA-PSS names its hash in its parameters; without them it defaults to SHA-1 (RFC 4055).
  return (
    algorithm.oid === rsassaPss && strongPssHashes.some((h) => algorithm.paramsHex.includes(h))
  );
}

/**
 * The outer signatureAlgorithm of a certificate (RFC 5280 4.1: Certificate ::= SEQUENCE {
 * tbsCertificate, signatureAlgorithm, signatureValue }); undefined when the DER cannot be read.
 */
export function signatureAlgorithm(der: Uint8Array): SignatureAlgorithm | undefined {
  try {
    const certificate = element(der, 0);
    const tbs = element(der, certificate.start);
    const algorithm = element(der, tbs.end);
    const oid = element(der, algorithm.start);
    if (oid.tag !== 0x06) return undefined;
    return {
      oid: decodeOid(der.subarray(oid.start, oid.end)),
      paramsHex: toHex(der.subarray(oid.end, algorithm.end)),
    };
  } catch {
    return undefined;
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

/** Lowercase hex of bytes. */
function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
