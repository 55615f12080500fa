export const redactedMark = "[redacted]";

export const maxServerTextInMessage = 1_000;

// Shorter secrets would blank ordinary words.
const minSecretLength = 4;
const tokensKept = 4;

export function boundText(text: string, max = maxServerTextInMessage): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function searchable(secret: string): boolean {
  return secret.length >= minSecretLength;
}

function formsOf(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  return [secret, encoded, encoded.replace(/%20/g, "+")];
}

/** Every secret the client knows, to blank out of server text before it reaches an error. */
export class SecretSet {
  readonly #fixed: string[];
  // Stryker disable next-line ArrayDeclaration: equivalent, a placeholder entry would only blank server text that spells it
  readonly #tokens: string[] = [];
  #forms: string[];

  // Stryker disable next-line ArrayDeclaration: equivalent, a placeholder entry would only blank server text that spells it
  constructor(secrets: readonly string[] = []) {
    this.#fixed = secrets.filter(searchable).flatMap(formsOf);
    this.#forms = this.#sorted();
  }

  addToken(token: string): void {
    if (this.#tokens.includes(token)) return;
    this.#tokens.push(token);
    if (this.#tokens.length > tokensKept) this.#tokens.shift();
    this.#forms = this.#sorted();
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.#forms) out = out.replaceAll(form, redactedMark);
    return out;
  }

  #sorted(): string[] {
    // Longest first: a secret inside a longer form (the Basic credential) is not half-replaced.
    const all = new Set([...this.#fixed, ...this.#tokens.filter(searchable).flatMap(formsOf)]);
    return [...all].sort((a, b) => b.length - a.length);
  }
}

/** Keys included, to depth 8. */
export function redactDeep(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (depth > 8 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    Object.defineProperty(out, redact(key), {
      value: redactDeep(v, redact, depth + 1),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}
