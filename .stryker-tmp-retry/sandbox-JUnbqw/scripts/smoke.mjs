#!/usr/bin/env node
// @ts-nocheck
// Installs the packed tarball into an empty folder, as a partner would, then loads every subpath of
// the exports map with both `require` and `import` and checks a few names on each. Catches what a
// test run inside the repository hides: a file missing from "files", a broken exports map, a
// CommonJS build that cannot load an ESM-only dependency, an optional peer loaded too early.
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
/** Names each subpath must export, whichever way it is loaded. */
const expected = {
  ".": ["PartnerOrders", "Decimal", "isProblem", "APIError", "RequestValidationError"],
  "./webhooks": ["verifyWebhook", "parseWebhook", "createWebhookHandler"],
  "./testing": ["createSandbox", "signWebhook"],
  "./mcp": ["connectMcp"],
  "./fleet": ["createRedisTokenCache", "createRedisRateLimitGate"],
  "./sync": ["OrderMirror", "sqliteStore"],
};

const dir = mkdtempSync(join(tmpdir(), "partner-orders-smoke-"));
const run = (cmd, args, cwd = dir) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
try {
  const [{ filename }] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], "."));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "smoke", private: true }));
  const extra = pkg.exports["./mcp"] ? ["@modelcontextprotocol/sdk"] : [];
  run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    join(dir, filename),
    ...extra,
  ]);

  let failures = 0;
  for (const subpath of Object.keys(pkg.exports)) {
    if (subpath === "./package.json") continue;
    const id = `partner-orders${subpath.slice(1)}`;
    const names = JSON.stringify(expected[subpath] ?? []);
    const check = `const missing = ${names}.filter((n) => !(n in m)); if (missing.length) { console.error("missing " + missing.join(", ")); process.exit(1); }`;
    const ways = {
      require: ["-e", `const m = require(${JSON.stringify(id)}); ${check}`],
      import: [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(id)}); ${check}`,
      ],
    };
    for (const [way, args] of Object.entries(ways)) {
      try {
        run(process.execPath, args);
        console.log(`smoke: ${way} ${id} ok`);
      } catch (error) {
        failures++;
        console.error(`smoke: ${way} ${id} FAILED\n${error.stderr || error.message}`);
      }
    }
  }
  // One class per error across entries: an error thrown through one subpath must be `instanceof`
  // the class another exports (shared chunks, not a copy per entry).
  const same =
    "if (m.WebhookVerificationError !== w.WebhookVerificationError) process.exit(1); " +
    "await t.connectMcp({}).then(() => process.exit(1), (e) => e instanceof m.PartnerOrdersError || process.exit(1));";
  const identity = {
    require: [
      "-e",
      `(async () => { const m = require("partner-orders"), w = require("partner-orders/webhooks"), t = require("partner-orders/mcp"); ${same} })()`,
    ],
    import: [
      "--input-type=module",
      "-e",
      `const m = await import("partner-orders"), w = await import("partner-orders/webhooks"), t = await import("partner-orders/mcp"); ${same}`,
    ],
  };
  for (const [way, args] of Object.entries(identity)) {
    try {
      run(process.execPath, args);
      console.log(`smoke: ${way} error classes shared across subpaths ok`);
    } catch (error) {
      failures++;
      console.error(
        `smoke: ${way} error classes differ across subpaths\n${error.stderr || error.message}`,
      );
    }
  }
  // The version written into the build at build time: every request's User-Agent names it.
  const agent = `partner-orders/${pkg.version} (node/${process.versions.node})`;
  const sendsAgent =
    'let ua; const c = new m.PartnerOrders({ baseUrl: "https://api.test", accessToken: "t", fetch: async (r) => { ua = r.headers.get("user-agent"); return new Response("{}"); } }); ' +
    `await c.ping(); if (ua !== ${JSON.stringify(agent)}) { console.error("User-Agent: " + ua); process.exit(1); }`;
  const agentWays = {
    require: ["-e", `(async () => { const m = require("partner-orders"); ${sendsAgent} })()`],
    import: [
      "--input-type=module",
      "-e",
      `const m = await import("partner-orders"); ${sendsAgent}`,
    ],
  };
  for (const [way, args] of Object.entries(agentWays)) {
    try {
      run(process.execPath, args);
      console.log(`smoke: ${way} User-Agent ${agent} ok`);
    } catch (error) {
      failures++;
      console.error(`smoke: ${way} User-Agent FAILED\n${error.stderr || error.message}`);
    }
  }
  // examples/commonjs.cjs as a partner would run it: require() of the installed package and its
  // testing subpath, a sandbox, a list of orders, one line printed.
  try {
    copyFileSync("examples/commonjs.cjs", join(dir, "commonjs.cjs"));
    const out = run(process.execPath, ["commonjs.cjs"]);
    if (!/^\d+ orders on site \d+; first #\d+ /.test(out))
      throw new Error(`unexpected output: ${out}`);
    console.log(`smoke: node examples/commonjs.cjs ok (${out.trim()})`);
  } catch (error) {
    failures++;
    console.error(`smoke: node examples/commonjs.cjs FAILED\n${error.stderr || error.message}`);
  }
  // The bin a partner runs: `npx partner-orders sandbox` prints a base URL that answers /v1/ping.
  try {
    await checkSandboxCommand(join(dir, "node_modules", ".bin", "partner-orders"));
    console.log("smoke: npx partner-orders sandbox ok");
  } catch (error) {
    failures++;
    console.error(`smoke: npx partner-orders sandbox FAILED\n${error.message}`);
  }
  if (failures) process.exit(1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** Starts the sandbox command, reads the URL it prints, pings it, and stops it. */
function checkSandboxCommand(bin) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["sandbox", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => finish(new Error("no base URL printed within 20 s")), 20_000);
    let output = "";
    const finish = (error) => {
      clearTimeout(timer);
      child.kill();
      if (error) reject(error);
      else resolve();
    };
    child.on("error", finish);
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const url = /PARTNER_ORDERS_BASE_URL=(\S+)/.exec(output)?.[1];
      if (!url) return;
      child.stdout.removeAllListeners("data");
      fetch(`${url}/v1/ping`).then(
        (res) => finish(res.ok ? undefined : new Error(`GET /v1/ping answered ${res.status}`)),
        finish,
      );
    });
  });
}
