import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assertBuilt, root } from "../cli/support";

/**
 * The built entries as Node loads them (tsup.config.ts builds each entry on its own and shares the
 * error family and the webhook events through dist/shared.js): one class per name across subpaths,
 * errors thrown through one subpath `instanceof` another's classes, and the root entry loading no
 * file of ours but shared.js (every extra file costs each cold import 1.5-2 ms in Node's loader).
 */
const entries = [
  "index",
  "webhooks/index",
  "testing/index",
  "mcp/index",
  "fleet/index",
  "sync/index",
];

/** Runs in a child `node`: `load(path)` is `import()` or `require`, `ext` the files' extension. */
const probe = (load: string, ext: string) => `
const load = ${load};
const entries = ${JSON.stringify(entries)};
const mods = {};
for (const e of entries) mods[e] = await load(${JSON.stringify(join(root, "dist"))} + "/" + e + "${ext}");
const isClass = (v) => typeof v === "function" && /^class\\b/.test(Function.prototype.toString.call(v));
const byName = {};
for (const [e, m] of Object.entries(mods))
  for (const [name, v] of Object.entries(m)) if (isClass(v)) (byName[name] ??= []).push([e, v]);
const classes = {};
for (const [name, list] of Object.entries(byName))
  if (list.length > 1) classes[name] = list.every(([, v]) => v === list[0][1]);
const root = mods.index, hooks = mods["webhooks/index"];
const thrown = {};
try { hooks.parseWebhook("{") } catch (e) {
  thrown.payload = e instanceof root.WebhookPayloadError && e instanceof root.PartnerOrdersError;
}
await hooks.verifyWebhook({ body: "{}", headers: {}, secret: "s" }).catch((e) => {
  thrown.verification = e instanceof root.WebhookVerificationError && root.isPartnerOrdersError(e);
});
await mods["mcp/index"].connectMcp({}).catch((e) => { thrown.mcp = e instanceof root.PartnerOrdersError; });
console.log(JSON.stringify({ classes, thrown }));
`;

function run(code: string): { classes: Record<string, boolean>; thrown: Record<string, boolean> } {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: root,
    encoding: "utf8",
  });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout);
}

describe("the built entries", () => {
  for (const [way, load, ext] of [
    ["import", "(p) => import(p)", ".js"],
    ["require", '(await import("node:module")).createRequire(import.meta.url)', ".cjs"],
  ] as const) {
    it(`share one class per name across subpaths (${way})`, () => {
      assertBuilt();
      const { classes, thrown } = run(probe(load, ext));
      // Exported by the root and by webhooks: the error family's WebhookVerificationError, the
      // events' WebhookPayloadError.
      expect(Object.keys(classes)).toEqual(
        expect.arrayContaining(["WebhookVerificationError", "WebhookPayloadError"]),
      );
      expect(Object.entries(classes).filter(([, same]) => !same)).toEqual([]);
      expect(thrown).toEqual({ payload: true, verification: true, mcp: true });
    });
  }

  it("load the root with no file of ours but dist/shared.js", () => {
    assertBuilt();
    const relative = (file: string, pattern: RegExp) =>
      [...readFileSync(join(root, "dist", file), "utf8").matchAll(pattern)]
        .map((m) => m[1])
        .filter((spec) => spec?.startsWith("."));
    // Static imports only: telemetry, mTLS certificate parsing and MCP stay dynamic, on first use.
    const esm = /^(?:import|export)\b[^;'"]*?(?:from\s*)?['"]([^'"]+)['"]/gm;
    expect(new Set(relative("index.js", esm))).toEqual(new Set(["./shared.js"]));
    expect(relative("shared.js", esm)).toEqual([]);
    const cjs = /^(?:(?:var|const|let) [\w$]+ = )?require\(['"]([^'"]+)['"]\)/gm;
    expect(new Set(relative("index.cjs", cjs))).toEqual(new Set(["./shared.cjs"]));
    expect(relative("shared.cjs", cjs)).toEqual([]);
  });
});
