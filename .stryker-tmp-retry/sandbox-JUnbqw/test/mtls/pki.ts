// @ts-nocheck
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway PKI made with the openssl CLI in a temp dir: a root CA, a server certificate for
 * 127.0.0.1 and client certificates of every kind the pre-use checks care about.
 */
export interface Issued {
  cert: string;
  key: string;
}

export type ClientKind = "rsa2048" | "ec256" | "rsa1024" | "ec521" | "dsa2048";

export class Pki {
  readonly dir = mkdtempSync(join(tmpdir(), "partner-orders-pki-"));
  #serial = 1000;
  readonly ca: Issued;

  constructor() {
    this.ca = this.#selfSigned("ca", "/CN=Partner Orders Test Root CA", [
      "basicConstraints=critical,CA:TRUE",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
  }

  /** The server side of the mutual-TLS host. */
  server(): Issued {
    return this.issue("server", "ec256", "/CN=127.0.0.1", {
      ext: ["subjectAltName=IP:127.0.0.1", "extendedKeyUsage=serverAuth"],
    });
  }

  /** A client certificate chained to the CA. */
  client(name: string, kind: ClientKind = "ec256", options: { digest?: string } = {}): Issued {
    return this.issue(name, kind, `/O=Sandbox Partner/CN=${name}`, {
      ext: ["extendedKeyUsage=clientAuth"],
      digest: options.digest,
    });
  }

  /** An intermediate CA issued by `issuer` (the root by default). */
  intermediate(name: string, issuer = "ca"): Issued {
    return this.issue(name, "ec256", `/CN=${name}`, {
      issuer,
      ext: ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"],
    });
  }

  /** A client certificate whose validity ended in the past (openssl ca takes explicit dates). */
  expiredClient(name: string): Issued {
    const key = this.#key(name, "ec256");
    const csr = join(this.dir, `${name}.csr`);
    this.#openssl([
      "req",
      "-new",
      "-key",
      key,
      "-subj",
      `/O=Sandbox Partner/CN=${name}`,
      "-out",
      csr,
    ]);
    writeFileSync(join(this.dir, "index.txt"), "");
    writeFileSync(join(this.dir, "serial"), `${(this.#serial++).toString(16).padStart(4, "0")}\n`);
    const config = join(this.dir, "ca.cnf");
    writeFileSync(
      config,
      [
        "[ca]",
        "default_ca = test",
        "[test]",
        `dir = ${this.dir}`,
        "database = $dir/index.txt",
        "serial = $dir/serial",
        "new_certs_dir = $dir",
        "default_md = sha256",
        "policy = any",
        "unique_subject = no",
        "[any]",
        "organizationName = optional",
        "commonName = supplied",
        "",
      ].join("\n"),
    );
    const out = join(this.dir, `${name}.pem`);
    this.#openssl([
      "ca",
      "-batch",
      "-config",
      config,
      "-notext",
      "-cert",
      join(this.dir, "ca.pem"),
      "-keyfile",
      join(this.dir, "ca.key"),
      "-startdate",
      "20200101000000Z",
      "-enddate",
      "20200201000000Z",
      "-in",
      csr,
      "-out",
      out,
    ]);
    return { cert: readFileSync(out, "utf8"), key: readFileSync(key, "utf8") };
  }

  /** The same key, encrypted under `passphrase`. */
  encryptKey(key: string, passphrase: string): string {
    const plain = join(this.dir, `plain-${this.#serial++}.key`);
    writeFileSync(plain, key);
    return this.#openssl(["pkey", "-in", plain, "-aes256", "-passout", `pass:${passphrase}`]);
  }

  issue(
    name: string,
    kind: ClientKind,
    subject: string,
    options: {
      ext?: string[];
      digest?: string;
      days?: number;
      issuer?: string;
      /** Signing options (`-sigopt`), such as `rsa_padding_mode:pss`. */
      sigopt?: string[];
      /** Reuse the key issued earlier under this name instead of making one. */
      keyOf?: string;
    } = {},
  ): Issued {
    const key = options.keyOf ? this.#reuseKey(options.keyOf, name) : this.#key(name, kind);
    const csr = join(this.dir, `${name}.csr`);
    this.#openssl(["req", "-new", "-key", key, "-subj", subject, "-out", csr]);
    const ext = join(this.dir, `${name}.ext`);
    writeFileSync(ext, `${(options.ext ?? []).join("\n")}\n`);
    const out = join(this.dir, `${name}.pem`);
    this.#openssl([
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      join(this.dir, `${options.issuer ?? "ca"}.pem`),
      "-CAkey",
      join(this.dir, `${options.issuer ?? "ca"}.key`),
      "-set_serial",
      String(this.#serial++),
      "-days",
      String(options.days ?? 2),
      `-${options.digest ?? "sha256"}`,
      ...(options.sigopt ?? []).flatMap((o) => ["-sigopt", o]),
      "-extfile",
      ext,
      "-out",
      out,
    ]);
    return { cert: readFileSync(out, "utf8"), key: readFileSync(key, "utf8") };
  }

  /** The PEM certificate issued earlier under `name`. */
  pem(name: string): string {
    return readFileSync(join(this.dir, `${name}.pem`), "utf8");
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  #selfSigned(name: string, subject: string, ext: string[]): Issued {
    const key = this.#key(name, "ec256");
    const out = join(this.dir, `${name}.pem`);
    this.#openssl([
      "req",
      "-x509",
      "-new",
      "-key",
      key,
      "-subj",
      subject,
      "-days",
      "3",
      "-sha256",
      ...ext.flatMap((e) => ["-addext", e]),
      "-out",
      out,
    ]);
    return { cert: readFileSync(out, "utf8"), key: readFileSync(key, "utf8") };
  }

  /** `from`'s key, filed under `name` too (so certificates issued by `name` can be signed). */
  #reuseKey(from: string, name: string): string {
    const file = join(this.dir, `${name}.key`);
    copyFileSync(join(this.dir, `${from}.key`), file);
    return file;
  }

  #key(name: string, kind: ClientKind): string {
    const file = join(this.dir, `${name}.key`);
    const args: Record<ClientKind, string[]> = {
      rsa2048: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
      rsa1024: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
      ec256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
      ec521: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
      dsa2048: ["-paramfile", join(this.dir, "dsa-params.pem")],
    };
    if (kind === "dsa2048") {
      this.#openssl([
        "genpkey",
        "-genparam",
        "-algorithm",
        "DSA",
        "-pkeyopt",
        "pbits:2048",
        "-out",
        "dsa-params.pem",
      ]);
    }
    this.#openssl(["genpkey", ...args[kind], "-out", file]);
    return file;
  }

  #openssl(args: string[]): string {
    return execFileSync("/usr/bin/openssl", args, {
      cwd: this.dir,
      encoding: "utf8",
      stdio: "pipe",
    });
  }
}
