import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type MirrorStore, StoreLockedError, sqliteStore } from "partner-orders/sync";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { newHolder, retireHolder } from "../../src/sync/holder";

/**
 * A mirror's SQLite file shared by real processes: one writes (its claim recorded in the file),
 * another is refused as a writer but reads and stores a consumer's position while the writer
 * commits, and a writer killed with SIGKILL leaves a claim the next process takes over.
 */
const script = fileURLToPath(new URL("./sqlite-writer.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "po-sqlite-procs-"));
const children: ChildProcess[] = [];
const stores: MirrorStore[] = [];
const holders: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const store of stores.splice(0)) await store.close();
  for (const holder of holders.splice(0)) retireHolder(holder);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Line {
  claimed?: string;
  pid?: number;
  committed?: number;
  done?: number;
  closed?: boolean;
  error?: string;
  code?: string;
  message?: string;
}

interface Writer {
  child: ChildProcess;
  lines: Line[];
  exited: Promise<number | null>;
}

function startWriter(path: string, commits: number): Writer {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, DB: path, COMMITS: String(commits) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines: Line[] = [];
  let rest = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    const text = rest + chunk.toString();
    const complete = text.split("\n");
    rest = complete.pop() ?? "";
    for (const line of complete) if (line) lines.push(JSON.parse(line) as Line);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, lines, exited };
}

/** Polls until `check` holds (another process's progress), failing on a writer's error line. */
async function until(writer: Writer, check: () => boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    const failed = writer.lines.find((l) => l.error);
    if (failed) throw new Error(`the writer failed: ${JSON.stringify(failed)}`);
    if (writer.child.exitCode !== null) throw new Error(`the writer exited before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function reader(path: string): Promise<MirrorStore> {
  const store = sqliteStore(path);
  stores.push(store);
  await store.open();
  return store;
}

describe("a SQLite mirror file shared by processes", () => {
  it("refuses a second writer process by file and pid, while it reads changes and stores its position as the writer commits", async () => {
    const path = join(dir, "shared.db");
    const writer = startWriter(path, 1_500);
    await until(writer, () => writer.lines.some((l) => l.claimed), "the writer's claim");
    const store = await reader(path);

    const holder = newHolder();
    holders.push(holder);
    const refused = await store.claimWriter(holder).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreLockedError);
    expect(refused).toMatchObject({ path, holderPid: writer.child.pid });
    expect((refused as Error).message).toContain(path);
    expect((refused as Error).message).toContain(`process ${writer.child.pid}`);

    // A consumer in this process: reads every change as the writer commits, storing its position
    // after each batch (a write of its own, between the writer's transactions).
    const seen: number[] = [];
    let position = 0;
    let reads = 0;
    while (!(writer.lines.some((l) => l.done) && position === (await store.lastChangeId()))) {
      const failed = writer.lines.find((l) => l.error);
      if (failed) throw new Error(`the writer failed: ${JSON.stringify(failed)}`);
      const batch = await store.changesAfter(position, 50);
      for (const change of batch) seen.push(change.id);
      if (batch.length) {
        position = batch.at(-1)?.id as number;
        await store.setPosition("billing", position);
        expect((await store.get(batch[0]?.orderNumber as number))?.orderNumber).toBe(
          batch[0]?.orderNumber,
        );
      }
      reads++;
      // Lets this process read the writer's output between reads.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(writer.lines.find((l) => l.error)).toBeUndefined();
    expect(seen).toEqual(Array.from({ length: 1_500 }, (_, i) => i + 1));
    expect(reads).toBeGreaterThan(10); // it did read while the writer wrote
    expect(await store.getPosition("billing")).toBe(1_500);

    writer.child.kill("SIGTERM");
    expect(await writer.exited).toBe(0);
    expect(writer.lines.some((l) => l.closed)).toBe(true);
    // The writer closed: its claim is released, and this process may write.
    await store.claimWriter(holder);
  });

  it("a writer killed with SIGKILL leaves a claim the next process takes over", async () => {
    const path = join(dir, "killed.db");
    const writer = startWriter(path, 10);
    await until(writer, () => writer.lines.some((l) => l.done !== undefined), "the writer's work");
    const store = await reader(path);
    const holder = newHolder();
    holders.push(holder);
    await expect(store.claimWriter(holder)).rejects.toMatchObject({
      code: "store_locked",
      holderPid: writer.child.pid,
    });

    writer.child.kill("SIGKILL");
    expect(await writer.exited).toBe(null);
    // Its claim is still in the file, naming a process that no longer exists: taken over.
    const before = new Database(path, { readonly: true });
    expect(before.prepare("SELECT pid FROM po_writer").get()).toEqual({ pid: writer.child.pid });
    before.close();
    await store.claimWriter(holder);
    const after = new Database(path, { readonly: true });
    expect(after.prepare("SELECT holder, pid FROM po_writer").get()).toEqual({
      holder,
      pid: process.pid,
    });
    after.close();
    expect((await store.changesAfter(0, 100)).length).toBe(10);
  });
});
