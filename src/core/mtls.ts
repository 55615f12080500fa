// undici, node:crypto and x509 load on first use: the root entry stays importable without them.
import type { Clock } from "../internal/clock";
import { PartnerOrdersError } from "./errors";
import { loadUndici, undiciWire, type Wire } from "./http/wire";
import type { Log } from "./logger";
import type { MtlsOptions } from "./options";

/** What {@link checkMtlsCertificate} found wrong with a certificate, key or chain. */
export type MtlsCertificateReason =
  | "unreadable_certificate"
  | "unreadable_key"
  | "key_mismatch"
  | "chain_too_long"
  | "chain_out_of_order"
  | "weak_signature"
  | "weak_key"
  | "expired"
  | "not_yet_valid";

/** A client certificate that breaks a requirement of the service, found before it was used. */
export class MtlsCertificateError extends PartnerOrdersError {
  override name = "MtlsCertificateError";
  /** Which requirement failed; stable, unlike the message. */
  readonly reason: MtlsCertificateReason;
  constructor(reason: MtlsCertificateReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The certificate requirements of the API document (Mutual TLS, and Limits), as data. */
export const mtlsPolicy = {
  /** "maximum chain length 4", counting the client certificate and the root. */
  maxChainLength: 4,
  /** RSA keys below this many bits are refused ("RSA-2048 or stronger"). */
  minRsaBits: 2048,
  /** The only EC curves accepted ("ECDSA P-256/P-384"), by their OpenSSL names. */
  ecCurves: ["prime256v1", "secp384r1"] as readonly string[],
  /** A certificate expiring sooner than this is logged as a warning: the service sends no notice. */
  expiryWarningDays: 30,
} as const;

/** What the checks learned about a usable certificate. */
export interface MtlsCertificateInfo {
  /** Subject distinguished name of the client certificate. */
  subject: string;
  /** Serial number of the client certificate, in hex as OpenSSL prints it. */
  serialNumber: string;
  /** Start of the client certificate's validity. */
  validFrom: Date;
  /** End of the client certificate's validity: the service sends no notice. */
  validTo: Date;
  /** Certificates from the client certificate to the root, the root counted even when not sent. */
  chainLength: number;
}

const DAY_MS = 86_400_000;

/**
 * Checks a client certificate against the service's requirements ({@link mtlsPolicy}) before use.
 * @param options.now Wall-clock ms to check validity against. @default Date.now()
 * @throws {MtlsCertificateError} naming what is wrong; the key itself never appears.
 * @example
 * const info = await checkMtlsCertificate({ cert, key });
 * console.log(`valid until ${info.validTo.toISOString()}`);
 */
export async function checkMtlsCertificate(
  material: MtlsOptions,
  options: { now?: number } = {},
): Promise<MtlsCertificateInfo> {
  const [crypto, x509] = await Promise.all([import("node:crypto"), import("../internal/x509")]);
  return inspect(crypto, x509, material, options.now ?? Date.now());
}

type NodeCrypto = typeof import("node:crypto");
type X509 = import("node:crypto").X509Certificate;
type X509Parse = typeof import("../internal/x509");

function inspect(
  crypto: NodeCrypto,
  x509: X509Parse,
  material: MtlsOptions,
  now: number,
): MtlsCertificateInfo {
  const certs = readCertificates(crypto, material.cert);
  const leaf = certs[0] as X509;
  const name = `the client certificate (subject "${oneLine(leaf.subject)}", serial ${leaf.serialNumber})`;

  let privateKey: import("node:crypto").KeyObject;
  try {
    privateKey = crypto.createPrivateKey({
      key: text(material.key),
      passphrase: material.passphrase,
    });
  } catch {
    // The cause is dropped: nothing derived from the key is worth echoing.
    throw new MtlsCertificateError(
      "unreadable_key",
      "mtls.key could not be read as a PEM private key (is the passphrase right?).",
    );
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new MtlsCertificateError(
      "key_mismatch",
      `mtls.key is not the private key of ${name}: the handshake would fail.`,
    );
  }

  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i] as X509;
    const parent = certs[i + 1] as X509;
    if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) {
      throw new MtlsCertificateError(
        "chain_out_of_order",
        `mtls.cert must list the client certificate first, then each issuer in turn; certificate ${
          i + 2
        } did not issue certificate ${i + 1}.`,
      );
    }
  }
  const last = certs[certs.length - 1] as X509;
  const endsAtRoot = last.checkIssued(last) && last.verify(last.publicKey);
  const chainLength = certs.length + (endsAtRoot ? 0 : 1);
  if (chainLength > mtlsPolicy.maxChainLength) {
    throw new MtlsCertificateError(
      "chain_too_long",
      `The chain of ${name} has ${chainLength} certificates (root included); the service accepts at most ${mtlsPolicy.maxChainLength}.`,
    );
  }

  certs.forEach((cert, i) => {
    const which = i === 0 ? name : `certificate ${i + 1} of mtls.cert ("${oneLine(cert.subject)}")`;
    checkSignature(x509, cert, which);
    checkKey(cert, which);
    const validFrom = Date.parse(cert.validFrom);
    const validTo = Date.parse(cert.validTo);
    if (validTo <= now) {
      throw new MtlsCertificateError(
        "expired",
        `${capitalize(which)} expired on ${new Date(validTo).toISOString()}; register a new one and use it instead.`,
      );
    }
    if (validFrom > now) {
      throw new MtlsCertificateError(
        "not_yet_valid",
        `${capitalize(which)} is not valid before ${new Date(validFrom).toISOString()}.`,
      );
    }
  });

  return {
    subject: leaf.subject,
    serialNumber: leaf.serialNumber,
    validFrom: new Date(Date.parse(leaf.validFrom)),
    validTo: new Date(Date.parse(leaf.validTo)),
    chainLength,
  };
}

function readCertificates(crypto: NodeCrypto, cert: MtlsOptions["cert"]): X509[] {
  const blocks = text(cert).match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) {
    throw new MtlsCertificateError(
      "unreadable_certificate",
      "mtls.cert holds no PEM certificate (-----BEGIN CERTIFICATE-----).",
    );
  }
  return blocks.map((block, i) => {
    try {
      return new crypto.X509Certificate(block);
    } catch {
      throw new MtlsCertificateError(
        "unreadable_certificate",
        `Certificate ${i + 1} of mtls.cert is not a readable X.509 certificate.`,
      );
    }
  });
}

const weakSignatureNames = new Map([
  ["1.2.840.113549.1.1.4", "md5WithRSAEncryption"],
  ["1.2.840.113549.1.1.5", "sha1WithRSAEncryption"],
  ["1.2.840.113549.1.1.14", "sha224WithRSAEncryption"],
  ["1.2.840.10045.4.1", "ecdsa-with-SHA1"],
  ["1.2.840.10045.4.3.1", "ecdsa-with-SHA224"],
]);
function checkSignature(x509: X509Parse, cert: X509, which: string): void {
  const algorithm = x509.signatureAlgorithm(cert.raw);
  if (x509.isStrongSignature(algorithm)) return;
  throw new MtlsCertificateError(
    "weak_signature",
    `${capitalize(which)} is signed with ${
      algorithm
        ? (weakSignatureNames.get(algorithm.oid) ?? `algorithm ${algorithm.oid}`)
        : "an unreadable algorithm"
    }; the service requires SHA-256 or stronger.`,
  );
}

function checkKey(cert: X509, which: string): void {
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType;
  if (type === "rsa" && (details.modulusLength ?? 0) >= mtlsPolicy.minRsaBits) return;
  if ((mtlsPolicy.ecCurves as readonly unknown[]).includes(details.namedCurve)) return;
  const has =
    type === "rsa"
      ? `an RSA-${details.modulusLength} key`
      : type === "ec"
        ? `an EC key on ${details.namedCurve}`
        : `a ${type} key`;
  throw new MtlsCertificateError(
    "weak_key",
    `${capitalize(which)} has ${has}; the service requires RSA-2048 or stronger, or ECDSA P-256/P-384.`,
  );
}

function text(value: string | Uint8Array): string {
  return typeof value === "string" ? value : new TextDecoder().decode(value);
}

function oneLine(subject: string): string {
  return subject.split("\n").join(", ");
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

interface Prepared {
  undici: typeof import("undici");
  agent: import("undici").Agent;
  info: MtlsCertificateInfo;
  wire?: Wire;
}

export class MtlsConnection {
  #current: Promise<Prepared> | undefined;
  #material: MtlsOptions;
  #warnedFor: Prepared | undefined;

  constructor(
    material: MtlsOptions,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {
    this.#material = material;
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    return send(await this.#ready(), request);
  };

  readonly request: Wire = async (request) => {
    const prepared = await this.#ready();
    prepared.wire ??= undiciWire(prepared.agent);
    return prepared.wire(request);
  };

  async #ready(): Promise<Prepared> {
    this.#current ??= this.#prepare(this.#material);
    const prepared = await this.#current;
    this.#checkStillValid(prepared);
    return prepared;
  }

  /** A certificate that fails the checks leaves the one in use in place. */
  async replace(material: MtlsOptions): Promise<MtlsCertificateInfo> {
    const next = await this.#prepare(material);
    const previous = this.#current;
    this.#current = Promise.resolve(next);
    this.#material = material;
    // Stryker disable next-line ArrowFunction: an optimisation, undici's keep-alive timeout frees idle sockets anyway
    previous?.then((p) => p.agent.close()).catch(() => {});
    return next.info;
  }

  async #prepare(material: MtlsOptions): Promise<Prepared> {
    const [undici, crypto, x509] = await Promise.all([
      loadUndici(),
      import("node:crypto"),
      import("../internal/x509"),
    ]);
    if (!undici) {
      throw new PartnerOrdersError(
        "Mutual TLS needs the undici package, an optional peer dependency of partner-orders: run `npm install undici`.",
      );
    }
    const info = inspect(crypto, x509, material, this.clock.now());
    const agent = new undici.Agent({
      connect: {
        cert: text(material.cert),
        key: text(material.key),
        passphrase: material.passphrase,
        // Without `ca`, Node's default trust store applies; given, it replaces that store.
        ca: material.ca === undefined ? undefined : [material.ca].flat().map(text),
      },
    });
    return { undici, agent, info };
  }

  /** A long-running process may outlive its certificate: say so rather than fail a handshake. */
  #checkStillValid(prepared: Prepared): void {
    const { info } = prepared;
    const left = info.validTo.getTime() - this.clock.now();
    const facts = { subject: oneLine(info.subject), serialNumber: info.serialNumber };
    if (left <= 0) {
      throw new MtlsCertificateError(
        "expired",
        `The client certificate (serial ${info.serialNumber}) expired on ${info.validTo.toISOString()}; ` +
          "register a new one and pass it to client.setMtlsCertificate().",
      );
    }
    if (left < mtlsPolicy.expiryWarningDays * DAY_MS && this.#warnedFor !== prepared) {
      this.#warnedFor = prepared;
      // The service sends no expiry notice: this is it.
      this.log.warn(
        `the mutual-TLS client certificate expires in ${Math.ceil(left / DAY_MS)} day(s), on ` +
          `${info.validTo.toISOString()}; register its replacement and call client.setMtlsCertificate()`,
        facts,
      );
    }
  }
}

// undici's `fetch` refuses the global `Request` (another copy of its class).
async function send({ undici, agent }: Prepared, request: Request): Promise<Response> {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const response = await undici.fetch(request.url, {
    method: request.method,
    headers: [...request.headers],
    body: hasBody ? new Uint8Array(await request.arrayBuffer()) : undefined,
    redirect: request.redirect,
    signal: request.signal,
    dispatcher: agent,
  });
  // The global class at run time; undici already gives a 204, 205 or 304 a null body.
  const body = response.body as unknown as ReadableStream<Uint8Array> | null;
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
}
