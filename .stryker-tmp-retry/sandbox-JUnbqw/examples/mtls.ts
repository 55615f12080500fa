/**
 * Mutual TLS: the client certificate is the credential, against the mutual-TLS host. Needs undici
 * (`npm install undici`). Rotates the certificate on the live client when the files change.
 *
 *   MTLS_URL=https://mtls.example.com MTLS_CERT=client.pem MTLS_KEY=client.key \
 *     npx tsx examples/mtls.ts
 */
// @ts-nocheck

import { readFile } from "node:fs/promises";
import { isPartnerOrdersError, PartnerOrders } from "partner-orders";

const certFile = process.env.MTLS_CERT ?? "client.pem";
const keyFile = process.env.MTLS_KEY ?? "client.key";
const readMaterial = async () => ({
  cert: await readFile(certFile, "utf8"),
  key: await readFile(keyFile, "utf8"),
  // passphrase: process.env.MTLS_KEY_PASSPHRASE,   for an encrypted key
  // ca: await readFile("server-ca.pem", "utf8"),   only when the host's CA is not a public one
});

const client = new PartnerOrders({
  baseUrl: process.env.MTLS_URL ?? "https://mtls.example.com", // the mutual-TLS host, not the bearer one
  mtls: await readMaterial(),
  logger: console, // a certificate expiring within 30 days is a warning here
});

// The first call checks the certificate (chain, signature, key, dates) before anything is sent.
const me = await client.me();
console.log(`${me.partnerName}: authenticated by ${me.authMethod}`); // "MTLS"

// Register the new certificate with the service first (both can be live), then switch without a
// restart. A certificate that fails the checks is refused and the current one stays in use.
async function rotate(): Promise<void> {
  try {
    const info = await client.setMtlsCertificate(await readMaterial());
    console.log(`now using serial ${info.serialNumber}, valid until ${info.validTo.toISOString()}`);
  } catch (err) {
    if (isPartnerOrdersError(err)) console.error(`kept the current certificate: ${err.message}`);
    else throw err;
  }
}
process.on("SIGHUP", () => void rotate());
