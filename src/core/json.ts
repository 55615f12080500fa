/** Numbers at `keep` paths stay text: JSON.parse would round them (Node 20 has no source access). */
export function parseJsonKeepingNumbers(text: string, keep: ReadonlySet<string>): unknown {
  let i = 0;

  const fail = (): never => {
    // Stryker disable next-line StringLiteral: decodeBody replaces every refusal with its own message
    throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
  };
  // Past the end charCodeAt is NaN, no space: the loop needs no bound.
  const skipSpace = () => {
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail();
    i++;
  };
  // Keys too: a slice not starting with a quote is no JSON string, so JSON.parse refuses it.
  const readString = (): string => {
    const start = i;
    let c = text[++i];
    while (c !== '"') {
      if (c === undefined) fail();
      if (c === "\\") i++;
      c = text[++i];
    }
    i++;
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
