import { describe, expect, it } from "vitest";
import { boundText, redactDeep, SecretSet } from "../../../src/core/redact";

describe("server text cut for messages", () => {
  it("text of exactly the limit is kept whole; one character more is cut with an ellipsis", () => {
    expect(boundText("abcde", 5)).toBe("abcde");
    expect(boundText("abcdef", 5)).toBe("abcde…");
  });

  it("the default limit is 1,000 characters", () => {
    expect(boundText("x".repeat(1000))).toBe("x".repeat(1000));
    expect(boundText("x".repeat(1001))).toBe(`${"x".repeat(1000)}…`);
  });
});

describe("secrets blanked out of server text", () => {
  it("a secret of four characters is redacted, one of three is not searched for", () => {
    const secrets = new SecretSet(["abcd", "xyz"]);
    expect(secrets.redact("abcd xyz")).toBe("[redacted] xyz");
  });

  it("an access token shorter than four characters is not searched for either", () => {
    const secrets = new SecretSet();
    secrets.addToken("abc");
    secrets.addToken("abcd");
    expect(secrets.redact("abc abcd")).toBe("abc [redacted]");
  });

  it("a secret is redacted as is, URL-encoded and form-encoded", () => {
    const secrets = new SecretSet(["my secret/1"]);
    expect(secrets.redact("a=my secret/1 b=my%20secret%2F1 c=my+secret%2F1")).toBe(
      "a=[redacted] b=[redacted] c=[redacted]",
    );
  });

  it("every occurrence is redacted", () => {
    expect(new SecretSet(["s3cr3t"]).redact("s3cr3t,s3cr3t")).toBe("[redacted],[redacted]");
  });

  it("a secret inside a longer one does not leave half of the longer one behind", () => {
    const secrets = new SecretSet(["abcd", "abcdefgh"]);
    expect(secrets.redact("abcdefgh")).toBe("[redacted]");
  });

  it("text without secrets is returned as is", () => {
    expect(new SecretSet().redact("nothing to hide")).toBe("nothing to hide");
  });

  it("the four latest access tokens are remembered; a token sent again does not push one out", () => {
    const secrets = new SecretSet();
    for (const token of ["token-1", "token-2", "token-3", "token-4", "token-4", "token-4"]) {
      secrets.addToken(token);
    }
    expect(secrets.redact("token-1 token-4")).toBe("[redacted] [redacted]");
    secrets.addToken("token-5");
    expect(secrets.redact("token-1 token-2 token-5")).toBe("token-1 [redacted] [redacted]");
  });
});

/** `value` wrapped in `levels` objects: `{ a: { a: ... value } }`. */
function nested(levels: number, value: unknown): unknown {
  let out = value;
  for (let i = 0; i < levels; i++) out = { a: out };
  return out;
}

describe("secrets blanked out of a problem document", () => {
  const redact = (text: string) => text.replaceAll("secret", "[redacted]");

  it("strings in members, elements and member names are redacted; other values are kept", () => {
    const doc = { detail: "secret", list: ["a secret", 1, null, true], secret: 2 };
    expect(redactDeep(doc, redact)).toEqual({
      detail: "[redacted]",
      list: ["a [redacted]", 1, null, true],
      "[redacted]": 2,
    });
  });

  it("strings nine objects deep are redacted; what lies deeper is kept as it is", () => {
    expect(redactDeep(nested(9, "secret"), redact)).toEqual(nested(9, "[redacted]"));
    expect(redactDeep(nested(10, "secret"), redact)).toEqual(nested(10, "secret"));
  });

  it("arrays count toward the depth as objects do", () => {
    const inArrays = (levels: number, value: unknown) => {
      let out = value;
      for (let i = 0; i < levels; i++) out = [out];
      return out;
    };
    expect(redactDeep(inArrays(9, "secret"), redact)).toEqual(inArrays(9, "[redacted]"));
    expect(redactDeep(inArrays(10, "secret"), redact)).toEqual(inArrays(10, "secret"));
  });

  it("a member named __proto__ stays an ordinary, writable, listed member", () => {
    const doc = JSON.parse('{"__proto__":{"x":"secret"},"detail":"d"}') as object;
    const out = redactDeep(doc, redact) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__", "detail"]);
    expect(Object.getOwnPropertyDescriptor(out, "detail")).toEqual({
      value: "d",
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });
});
