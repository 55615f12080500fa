#!/usr/bin/env node
// @ts-nocheck
// Type-checks the packed package the way partners compile against it (API.md, "Details partners
// expect": the published types compile under every common setup). Packs the built dist (run
// `npm run build` first), installs the tarball into an empty project with the TypeScript of our
// devDependencies and the newest one from the registry (one install, `typescript-next` alias), then
// compiles a file that uses every public entry as README shows, with `skipLibCheck: false`, under:
// nodenext ESM (.mts), nodenext CommonJS (.cts) and bundler (.ts), on both TypeScript versions.
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
/** Writes one project per setup for `source` and compiles each with both TypeScript versions. */
function check(id, round, source, extra = {}) {
  for (const [setup, [ext, options]] of Object.entries(setups)) {
    const project = join(dir, `${id}-${ext}`);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, `usage.${ext}`), source);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...base, ...options, ...extra },
        files: [`usage.${ext}`],
      }),
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
    `@types/node@${pkg.devDependencies["@types/node"]}`,
  );
  checkNoInternals();
  check("entries", "every entry but /mcp, no optional peer", usage);
  npmInstall("@modelcontextprotocol/sdk");
  // The MCP SDK's own declarations name Fetch types (`HeadersInit`) only the DOM lib declares.
  check("mcp", "/mcp, with @modelcontextprotocol/sdk", mcpUsage, {
    lib: ["ES2023", "DOM", "DOM.Iterable"],
  });
  if (failures) process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
