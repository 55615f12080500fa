/**
 * A JSON reader that keeps chosen numbers as the exact text the server sent.
 *
 * Money sent as a JSON number (SubmittedOrder.totalPrice, Quote.totalPrice, ...) must reach
 * `Decimal` exactly as written (README, "Money"): `JSON.parse` would round a 17-digit amount to the
 * nearest double first, and Node 20 has no JSON.parse source access. This reader runs only on bodies
 * that carry number-encoded money (submissions and quotes: small), and only the numbers at `keep`
 * paths stay text; everything else is what `JSON.parse` gives.
 *
 * Paths are dotted, with `[]` after an array's key for its elements: `order.lines[].lineListTotal`.
 */
export function parseJsonKeepingNumbers(text: string, keep: ReadonlySet<string>): unknown {
  let i = 0;

  const fail = (): never => {
    // Stryker disable next-line StringLiteral: decodeBody replaces every refusal with its own message
    throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
  };
  // Past the end charCodeAt is NaN, which is no space: the loop needs no bound of its own.
  const skipSpace = () => {
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail();
    i++;
  };
  // Also reads an object's keys: anything that does not start with a quote is refused there too, as
  // the slice handed to JSON.parse is then no JSON string.
  const readString = (): string => {
    const start = i;
    let c = text[++i];
    while (c !== '"') {
      if (c === undefined) fail();
      if (c === "\\") i++;
      c = text[++i];
    }
    i++;
    // The built-in parser decodes escapes exactly; only the slice is ours.
    return JSON.parse(text.slice(start, i)) as string;
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const readNumber = (here: string): number | string => {
    numberPattern.lastIndex = i;
    const match = numberPattern.exec(text);
    // Stryker disable next-line ConditionalExpression: without it match[0] throws, refused the same way
    if (!match) return fail();
    i += match[0].length;
    return keep.has(here) ? match[0] : Number(match[0]);
  };
  const readLiteral = <T>(word: string, value: T): T => {
    if (!text.startsWith(word, i)) fail();
    i += word.length;
    return value;
  };
  /** `here` is the value's path: `order.lines[].lineListTotal`, `""` for the whole body. */
  const readValue = (here: string): unknown => {
    skipSpace();
    switch (text[i]) {
      case "{":
        return readObject(here);
      case "[":
        return readArray(here);
      case '"':
        return readString();
      case "t":
        return readLiteral("true", true);
      case "f":
        return readLiteral("false", false);
      case "n":
        return readLiteral("null", null);
      default:
        return readNumber(here);
    }
  };
  const readObject = (here: string): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    skipSpace();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      skipSpace();
      const key = readString();
      expect(":");
      const value = readValue(here ? `${here}.${key}` : key);
      // An own property even for "__proto__", as JSON.parse does; never a prototype change.
      Object.defineProperty(out, key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      skipSpace();
      if (text[i] === ",") {
        i++;
        continue;
      }
      expect("}");
      return out;
    }
  };
  // Elements are addressed as `key[]`; those of a top-level array as `[]`.
  const readArray = (here: string): unknown[] => {
    i++;
    const out: unknown[] = [];
    skipSpace();
    if (text[i] === "]") {
      i++;
      return out;
    }
    for (;;) {
      out.push(readValue(`${here}[]`));
      skipSpace();
      if (text[i] === ",") {
        i++;
        continue;
      }
      expect("]");
      return out;
    }
  };

  const result = readValue("");
  skipSpace();
  if (i !== text.length) fail();
  return result;
}
