import { describe, expect, it } from "vitest";
import type { PartnerOrders } from "../../../src/client";
import type { Logger } from "../../../src/core/logger";
import { boundText, redactDeep, SecretSet } from "../../../src/core/redact";
import { harness, rejection } from "../../support/client";
import type { FakeClock } from "../../support/fake-clock";
import {
  connectionRefused,
  type FakeServer,
  json,
  problem,
  stall,
} from "../../support/fake-server";
import { orderRequest, submission } from "../../support/fixtures";

const secret = "SECRET-PLANTED-123";
const token = "TOKEN-PLANTED-456";
const planted = [secret, token, btoa(`client-id:${secret}`)];

function capturingLogger(lines: unknown[][]): Logger {
  const push = (...args: unknown[]) => lines.push(args);
  return { debug: push, info: push, warn: push, error: push };
}

/** Every way an error can be shown: message, String(), stack, own fields, and its causes. */
function renderings(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as Error;
    out.push(String(e), e.message ?? "", e.stack ?? "");
    const own = Object.fromEntries(
      Object.getOwnPropertyNames(e)
        .filter((k) => k !== "headers")
        .map((k) => [k, (e as unknown as Record<string, unknown>)[k]]),
    );
    out.push(JSON.stringify(own, (_, v) => (typeof v === "bigint" ? String(v) : v)));
    current = e.cause;
  }
  return out;
}

type Scenario = [
  name: string,
  setup: (server: FakeServer, clock: FakeClock) => void,
  call: (c: PartnerOrders) => PromiseLike<unknown>,
];

const issueToken = (server: FakeServer) =>
  server.on("POST /oauth2/token", () => json({ access_token: token, expires_in: 3600 }));

const scenarios: Scenario[] = [
  [
    "token endpoint invalid_client",
    (s) => s.on("POST /oauth2/token", () => json({ error: "invalid_client" }, 401)),
    (c) => c.me(),
  ],
  [
    "token endpoint unreachable",
    (s) => s.on("POST /oauth2/token", connectionRefused),
    (c) => c.me(),
  ],
  ["two 401s", (s) => s.on("GET /v1/me", () => problem(401, "invalid_token")), (c) => c.me()],
  [
    "404",
    (s) => s.on("GET /v1/orders/5", () => problem(404, "order_not_found")),
    (c) => c.orders.get(5),
  ],
  [
    "429 over 60 s",
    (s) =>
      s.on("GET /v1/me", () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "600" })),
    (c) => c.me(),
  ],
  ["500", (s) => s.on("GET /v1/me", () => problem(500, "internal_error")), (c) => c.me()],
  ["503", (s) => s.on("GET /v1/me", () => problem(503, "service_unavailable")), (c) => c.me()],
  ["connection error", (s) => s.on("GET /v1/me", connectionRefused), (c) => c.me()],
  ["timeout", (s, clock) => s.on("GET /v1/me", stall(clock)), (c) => c.me({ timeoutMs: 5 })],
  [
    "edge firewall 403",
    (s) => s.on("GET /v1/me", () => new Response(null, { status: 403 })),
    (c) => c.me(),
  ],
  [
    "redirect",
    (s) =>
      s.on(
        "GET /v1/me",
        () => new Response(null, { status: 307, headers: { location: "https://evil.test/" } }),
      ),
    (c) => c.me(),
  ],
  ["invalid request", () => {}, (c) => c.orders.submit({ ...orderRequest(), siteId: -1 })],
  ["hostile path", () => {}, (c) => c.orders.get("../x" as never)],
  [
    "submission timeout",
    (s) => s.on("POST /v1/orders", () => json(submission("queued"), 201, { "retry-after": "2" })),
    (c) => c.submitOrderAndWait(orderRequest(), { timeoutMs: 3000 }),
  ],
  [
    "poll Location on another origin",
    (s) =>
      s.on("POST /v1/orders", () =>
        json(submission("queued"), 201, { location: "https://evil.test/v1/orders/submissions/x" }),
      ),
    (c) => c.submitOrderAndWait(orderRequest()),
  ],
];

describe("no secret in errors or logs", () => {
  it.each(scenarios)("%s", async (_, setup, call) => {
    const lines: unknown[][] = [];
    const { client, server, clock } = harness({
      clientSecret: secret,
      logger: capturingLogger(lines),
      logLevel: "debug",
      timeoutMs: 50,
    });
    issueToken(server);
    setup(server, clock);
    const error = await rejection(() => call(client));
    for (const text of renderings(error)) {
      for (const value of planted) expect(text).not.toContain(value);
    }
    for (const line of lines) {
      const text = line
        .map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg)))
        .join(" ");
      for (const value of planted) expect(text).not.toContain(value);
    }
  });

  it("the logger does hear about failed calls at debug level (the check above is not vacuous)", async () => {
    const lines: unknown[][] = [];
    const { client, server } = harness({
      clientSecret: secret,
      logger: capturingLogger(lines),
      logLevel: "debug",
    });
    issueToken(server);
    server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    await rejection(client.me());
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(server.at(0, "GET /v1/me").headers.get("authorization")).toBe(`Bearer ${token}`);
  });

  it("a fixed accessToken never reaches the 401 error or the log", async () => {
    const lines: unknown[][] = [];
    const { client, server } = harness({
      accessToken: token,
      clientId: undefined,
      clientSecret: undefined,
      logger: capturingLogger(lines),
      logLevel: "debug",
    });
    server.on("GET /v1/me", () => problem(401, "invalid_token"));
    const error = await rejection(client.me());
    for (const text of [...renderings(error), JSON.stringify(lines)])
      expect(text).not.toContain(token);
  });
});

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
