/**
 * What replaces a secret found in server text: no secret may reach an error, a message, a stack or
 * a log line, even when the server echoes one back.
 */
export const redactedMark = "[redacted]";

/** Server text placed in a message is cut to this many characters (a 5 MB `detail` stays out). */
export const maxServerTextInMessage = 1_000;

/** Secrets shorter than this are not searched for: they would blank ordinary words. */
const minSecretLength = 4;
/** Tokens remembered for redaction: the current one and a few before it. */
const tokensKept = 4;

/** `text`, cut to `max` characters with an ellipsis when longer. */
export function boundText(text: string, max = maxServerTextInMessage): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Whether `secret` is long enough to search for. */
function searchable(secret: string): boolean {
  return secret.length >= minSecretLength;
}

/** The forms a secret can take in server text: as is, URL-encoded, form-encoded. */
function formsOf(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  return [secret, encoded, encoded.replace(/%20/g, "+")];
}

/**
 * Every secret the client knows (client secret, Basic credential, current and previous access
 * tokens) and their encoded forms, to blank them out of server text before it reaches an error.
 */
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

  /** Remembers an access token sent (or about to be sent), so an echo of it is redacted. */
  addToken(token: string): void {
    if (this.#tokens.includes(token)) return;
    this.#tokens.push(token);
    if (this.#tokens.length > tokensKept) this.#tokens.shift();
    this.#forms = this.#sorted();
  }

  /** `text` with every known secret form replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const form of this.#forms) out = out.replaceAll(form, redactedMark);
    return out;
  }

  #sorted(): string[] {
    // Longest first, so a secret inside a longer form (the Basic credential) is not half-replaced.
    const all = new Set([...this.#fixed, ...this.#tokens.filter(searchable).flatMap(formsOf)]);
    return [...all].sort((a, b) => b.length - a.length);
  }
}

/** `value` with every string in it (members, elements, at any depth up to 8) redacted. */
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
