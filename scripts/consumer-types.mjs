#!/usr/bin/env node
// Type-checks the packed package the way partners compile against it: the published types compile
// under every common setup (README, "API reference"). Packs the built dist (run `npm run build`
// first), installs the tarball into an empty project with the TypeScript of our devDependencies and
// the newest one from the registry (one install, `typescript-next` alias), then compiles a file that
// uses every public entry as README shows, with `skipLibCheck: false`, under: nodenext ESM (.mts),
// nodenext CommonJS (.cts) and bundler (.ts), on both TypeScript versions, and each of those with
// the `@types/node` of our devDependencies (20) and the newest one, which is what a plain
// `npm install -D @types/node` brings a partner today.
//
// Beside it, the README's webhook snippets are compiled as written, read from README.md itself, so
// the README cannot show a form that does not compile: `http.createServer(webhooks)`, Express with
// `express.raw()`, Hono's `webhooks.fetch(c.req.raw)`, and `webhooks.node` inside routing of one's
// own. Express's types and Hono are installed for them (neither is a peer of ours).
//
// Optional peers are not installed: the root, /webhooks, /testing, /fleet and /sync must compile
// without any of them. /mcp hands out the MCP SDK's own `Client`, so a partner using it has the SDK
// installed: it is checked in a second round, after `npm install @modelcontextprotocol/sdk`, with
// the DOM lib the SDK's own declarations need.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
if (!existsSync("dist/index.d.ts")) {
  console.error("consumer-types: dist/ is missing; run `npm run build` first.");
  process.exit(1);
}

/** Every entry but /mcp, used as README shows; the same text is compiled as .mts, .cts and .ts. */
const usage = `
import {
  Decimal,
  isProblem,
  PartnerOrders,
  type OrderRequest,
  type Submission,
  type WebhookEvent,
} from "partner-orders";
import { createWebhookHandler, verifyWebhook } from "partner-orders/webhooks";
import { createSandbox, signWebhook } from "partner-orders/testing";
import { createRedisRateLimitGate, createRedisTokenCache, type RedisLike } from "partner-orders/fleet";
import { OrderMirror, sqliteStore } from "partner-orders/sync";

export async function main(request: OrderRequest, redis: RedisLike, signal: AbortSignal) {
  const exact: Decimal = new Decimal("1.10");
  const sum = exact.plus(Decimal.max(1, "2.5"));

  const sandbox = createSandbox({ seed: 1 });
  const { url, close } = await sandbox.listen();
  const mswHandlers = await sandbox.mswHandlers("https://api.example.com");
  const client = new PartnerOrders({
    baseUrl: url,
    ...sandbox.credentials,
    scopes: ["orders:read"],
    tokenCache: createRedisTokenCache(redis),
    rateLimitGate: createRedisRateLimitGate(redis),
  });
  const me = await client.me();
  for await (const order of client.orders.list({ siteId: 12 })) {
    const total: Decimal | null = order.totals.order;
    if (total) sum.plus(total);
  }
  const page = await client.orders.list({ siteId: 12, limit: 200 });
  if (page.hasNextPage()) await page.getNextPage();
  try {
    await client.orders.get(1234);
  } catch (err) {
    if (isProblem(err, "order_not_found")) console.log(err.status, err.requestId);
  }

  const submission: Submission = await client.submitOrderAndWait(request, { timeoutMs: 120_000 });
  if (submission.status === "completed") console.log(submission.order.totalPrice.toFixed(2));
  if (submission.status === "failed") console.log(submission.errors.map((e) => e.code));

  const secret = "whsec";
  const webhooks = createWebhookHandler({
    secret,
    async onEvent(event: WebhookEvent) {
      if (event.type === "shipment.shipped") console.log(event.orderNumber, event.shipmentNumber);
    },
  });
  const body = JSON.stringify({});
  const verified = await verifyWebhook({ body, headers: { "platform-signature": await signWebhook(body, secret) }, secret });

  const mirror = new OrderMirror({ client, store: sqliteStore("./orders.db") });
  void mirror.run({ signal });
  for await (const change of mirror.changes({ consumer: "notify-customers", signal })) {
    if (change.type === "shipment.shipped") console.log(change.orderNumber);
  }
  await close();
  return { me, webhooks, verified, sum, mswHandlers };
}
`;

/** /mcp, used as README shows: the root's \`client.mcp\` and a connection of one's own. */
const mcpUsage = `
import { PartnerOrders } from "partner-orders";
import { connectMcp, type McpClient } from "partner-orders/mcp";

export async function main(client: PartnerOrders) {
  const mcp = await client.mcp;
  const { tools } = await mcp.listTools();
  const result = await mcp.callTool({ name: "get_order", arguments: { orderNumber: 100001 } });
  const own: McpClient = await connectMcp(client);
  await own.close();
  return { tools, result };
}
`;

/**
 * Names the README's snippets take from the text around them, declared at module level: a snippet's
 * own declaration of the same name (inside its function) shadows them. An import is left out when
 * the snippet imports that name itself.
 */
const snippetImports = [
  ["ReadmeClient", 'import type { PartnerOrders as ReadmeClient } from "partner-orders";'],
  [
    "ReadmeWebhookHandler",
    'import type { WebhookHandler as ReadmeWebhookHandler } from "partner-orders/webhooks";',
  ],
  ["http", 'import * as http from "node:http";'],
  ["express", 'import express from "express";'],
  ["Hono", 'import { Hono } from "hono";'],
];
const snippetSurroundings = `
declare const client: ReadmeClient;
declare const secret: string;
declare const signal: AbortSignal;
declare const webhooks: ReadmeWebhookHandler;
declare function tellCustomer(orderNumber: number, trackingNumbers: readonly string[]): Promise<void>;
const app = express();
const hono = new Hono();
`;
/** A snippet's import statements (kept at module level) and the rest of it (a function body). */
const importStatement =
  /^import\s+(?:["'][^"']+["']|[^;]*?\sfrom\s+["'][^"']+["']);?[ \t]*(?:\/\/.*)?$/gm;

/**
 * The README's webhook snippets: every `ts` block that uses `partner-orders/webhooks` or a
 * `webhooks` handler, each as a module whose body runs in an async function, so that top-level
 * `await` in a snippet compiles in CommonJS files too. Keyed by a file name that names the README
 * section and line the snippet comes from.
 */
function readmeWebhookSnippets() {
  const lines = readFileSync("README.md", "utf8").split("\n");
  const snippets = {};
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const title = /^#{1,6}\s+(.*)$/.exec(lines[i]);
    if (title) heading = title[1];
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]));
    const code = lines.slice(start, i).join("\n");
    if (!["ts", "typescript"].includes(open[1]) || !/\bwebhooks\b/.test(code)) continue;
    const imports = code.match(importStatement) ?? [];
    const body = code.replace(importStatement, "");
    const name = `readme-${heading.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-line-${start + 1}`;
    snippets[name] = [
      `// README.md, "${heading}", the block at line ${start + 1}, as written.`,
      ...snippetImports
        .filter(([bound]) => !imports.some((line) => new RegExp(`\\b${bound}\\b`).test(line)))
        .map(([, line]) => line),
      ...imports,
      snippetSurroundings,
      "export async function snippet() {",
      body,
      "}",
      "",
    ].join("\n");
  }
  if (!Object.keys(snippets).length) {
    console.error("consumer-types: no webhook snippet found in README.md FAILED");
    process.exit(1);
  }
  return snippets;
}

const base = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: "ES2022",
  types: ["node"],
};
/** name: [file extension, compilerOptions] */
const setups = {
  "nodenext ESM": ["mts", { module: "nodenext", moduleResolution: "nodenext", lib: ["ES2023"] }],
  "nodenext CommonJS": [
    "cts",
    { module: "nodenext", moduleResolution: "nodenext", lib: ["ES2023"] },
  ],
  bundler: [
    "ts",
    { module: "esnext", moduleResolution: "bundler", lib: ["ES2023", "DOM", "DOM.Iterable"] },
  ],
};
const compilers = ["typescript", "typescript-next"];

const dir = mkdtempSync(join(tmpdir(), "partner-orders-types-"));
const run = (cmd, args, cwd = dir) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const npmInstall = (...specs) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...specs]);

let failures = 0;
/**
 * Writes one project per setup holding `sources` (file name without extension: text) and compiles
 * each with both TypeScript versions.
 */
function check(id, round, sources, extra = {}) {
  for (const [setup, [ext, options]] of Object.entries(setups)) {
    const project = join(dir, `${id}-${ext}`);
    mkdirSync(project, { recursive: true });
    const files = Object.entries(sources).map(([name, source]) => {
      writeFileSync(join(project, `${name}.${ext}`), source);
      return `${name}.${ext}`;
    });
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { ...base, ...options, ...extra }, files }),
    );
    for (const compiler of compilers) {
      const tsc = join(dir, "node_modules", compiler, "bin", "tsc");
      const version = run(process.execPath, [tsc, "--version"]).trim();
      const name = `${round}, ${setup}, ${version}`;
      try {
        run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
        console.log(`consumer-types: ${name} ok`);
      } catch (error) {
        failures++;
        console.error(`consumer-types: ${name} FAILED\n${error.stdout || ""}${error.stderr || ""}`);
      }
    }
  }
}

/** The request path is internal (`@internal`, stripped): no published declaration may name it. */
function checkNoInternals() {
  const root = join(dir, "node_modules", "partner-orders", "dist");
  const internal = /\b(?:class|interface|type)\s+(?:Transport|Operation|CallOptions)\b/;
  const files = readdirSync(root, { recursive: true }).filter((f) => /\.d\.c?ts$/.test(f));
  const leaks = files.filter((f) => internal.test(readFileSync(join(root, f), "utf8")));
  if (leaks.length) {
    failures++;
    console.error(`consumer-types: internal types published in ${leaks.join(", ")} FAILED`);
  } else console.log("consumer-types: no internal request-path type in the declarations ok");
}

/**
 * The `@types/node` lines partners compile with: ours, and the newest. Since @types/node 25,
 * `IncomingMessage#on` and friends are typed through generic event maps, which a structural request
 * type must still accept, so both lines are checked.
 */
const typesNodeLines = [pkg.devDependencies["@types/node"], "latest"];
let typesNodeInstalled;
/** Installs one `@types/node` line (unless it already is) and returns the version installed. */
function useTypesNode(line) {
  if (line !== typesNodeInstalled) npmInstall(`@types/node@${line}`);
  typesNodeInstalled = line;
  const manifest = join(dir, "node_modules", "@types", "node", "package.json");
  return JSON.parse(readFileSync(manifest, "utf8")).version;
}

try {
  const [{ filename }] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], "."));
  // type:module, so the .ts file of the bundler case is ESM too; .mts and .cts say it themselves.
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer-types", private: true, type: "module" }),
  );
  npmInstall(
    join(dir, filename),
    `typescript@${pkg.devDependencies.typescript}`,
    "typescript-next@npm:typescript@latest",
    // What the README's webhook snippets compile against; neither is a peer of ours.
    "@types/express",
    "hono",
  );
  checkNoInternals();
  const snippets = readmeWebhookSnippets();
  for (const line of typesNodeLines) {
    const version = useTypesNode(line);
    check(
      `entries-types-node-${version}`,
      `every entry but /mcp and README's webhook snippets, no optional peer, @types/node ${version}`,
      { usage, ...snippets },
    );
  }
  npmInstall("@modelcontextprotocol/sdk");
  // Newest first: it is the one installed now.
  for (const line of [...typesNodeLines].reverse()) {
    const version = useTypesNode(line);
    // The MCP SDK's own declarations name Fetch types (`HeadersInit`) only the DOM lib declares.
    check(
      `mcp-types-node-${version}`,
      `/mcp, with @modelcontextprotocol/sdk, @types/node ${version}`,
      { usage: mcpUsage },
      { lib: ["ES2023", "DOM", "DOM.Iterable"] },
    );
  }
  if (failures) process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
