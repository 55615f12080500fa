/**
 * A JSON reader that keeps chosen numbers as the exact text the server sent.
 *
 * Money sent as a JSON number (SubmittedOrder.totalPrice, Quote.totalPrice, ...) must reach
 * `Decimal` exactly as written (API.md, "Money"): `JSON.parse` would round a 17-digit amount to the
 * nearest double first, and Node 20 has no JSON.parse source access. This reader runs only on bodies
 * that carry number-encoded money (submissions and quotes: small), and only the numbers at `keep`
 * paths stay text; everything else is what `JSON.parse` gives.
 *
 * Paths are dotted, with `[]` after an array's key for its elements: `order.lines[].lineListTotal`.
 */
// @ts-nocheck

export function parseJsonKeepingNumbers(text: string, keep: ReadonlySet<string>): unknown {
  let i = 0;
  const path: string[] = [];

  const fail = (): never => {
    throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
  };
  const skipSpace = () => {
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    }
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail();
    i++;
  };
  const readString = (): string => {
    const start = i;
    i++;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") i++;
      else if (c === '"') break;
    }
    if (i >= text.length) fail();
    i++;
    // The built-in parser decodes escapes exactly; only the slice is ours.
    return JSON.parse(text.slice(start, i)) as string;
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const readNumber = (): number | string => {
    numberPattern.lastIndex = i;
    const match = numberPattern.exec(text);
    if (!match) return fail();
    i += match[0].length;
    return keep.has(path.join(".")) ? match[0] : Number(match[0]);
  };
  const readLiteral = <T>(word: string, value: T): T => {
    if (!text.startsWith(word, i)) fail();
    i += word.length;
    return value;
  };
  const readValue = (): unknown => {
    skipSpace();
    switch (text[i]) {
      case "{":
        return readObject();
      case "[":
        return readArray();
      case '"':
        return readString();
      case "t":
        return readLiteral("true", true);
      case "f":
        return readLiteral("false", false);
      case "n":
        return readLiteral("null", null);
      default:
        return readNumber();
    }
  };
  const readObject = (): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    skipSpace();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail();
      const key = readString();
      expect(":");
      path.push(key);
      const value = readValue();
      path.pop();
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
  const readArray = (): unknown[] => {
    i++;
    const out: unknown[] = [];
    const last = path.length - 1;
    const owner = path[last];
    // Elements are addressed as `key[]`; a top-level array as `[]`.
    if (last >= 0) path[last] = `${owner}[]`;
    else path.push("[]");
    skipSpace();
    if (text[i] === "]") i++;
    else {
      for (;;) {
        out.push(readValue());
        skipSpace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        expect("]");
        break;
      }
    }
    if (last >= 0) path[last] = owner as string;
    else path.pop();
    return out;
  };

  const result = readValue();
  skipSpace();
  if (i !== text.length) fail();
  return result;
}
