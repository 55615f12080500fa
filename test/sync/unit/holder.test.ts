import { hostname } from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { holderIsDead, holderProcess, newHolder, retireHolder } from "../../../src/sync/holder";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("holder names", () => {
  it("a new holder is host/pid/uuid, unique each time", () => {
    const a = newHolder();
    const b = newHolder();
    expect(a).toMatch(
      new RegExp(
        `^${hostname()}/${process.pid}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`,
      ),
    );
    expect(a).not.toBe(b);
    retireHolder(a);
    retireHolder(b);
  });

  it("holderProcess reads the host and pid", () => {
    expect(holderProcess("box-1/4242/abc")).toEqual({ host: "box-1", pid: 4242 });
    // A host with slashes keeps them; the pid is the second-last part.
    expect(holderProcess("a/b/77/id")).toEqual({ host: "a/b", pid: 77 });
  });

  it("holderProcess refuses names of another form", () => {
    expect(holderProcess("box-1/notapid/abc")).toBeUndefined();
    expect(holderProcess("box-1/42")).toBeUndefined();
    expect(holderProcess("box-1/42/abc/")).toBeUndefined();
    expect(holderProcess("x box-1/42/abc/def")).toBeUndefined();
    expect(holderProcess("42/abc")).toBeUndefined();
    expect(holderProcess("box/4a2/abc")).toBeUndefined();
    expect(holderProcess("box/42/a b/c")).toBeUndefined();
    expect(holderProcess("")).toBeUndefined();
    // The whole name must match: a host part spanning a line break is no host.
    expect(holderProcess("evil\nbox/42/abc")).toBeUndefined();
  });

  it("holderProcess needs something before and after the pid", () => {
    expect(holderProcess("/42/abc")).toEqual({ host: "", pid: 42 });
    expect(holderProcess("box/42/")).toBeUndefined();
  });
});

describe("holderIsDead", () => {
  it("a holder of this process is alive until retired", () => {
    const holder = newHolder();
    expect(holderIsDead(holder)).toBe(false);
    retireHolder(holder);
    expect(holderIsDead(holder)).toBe(true);
  });

  it("a holder of this process never opened here is dead", () => {
    expect(holderIsDead(`${hostname()}/${process.pid}/never-opened`)).toBe(true);
  });

  it("a holder on another host is never known dead", () => {
    expect(holderIsDead(`not-${hostname()}/999999999/x`)).toBe(false);
  });

  it("a name of another form is not known dead", () => {
    expect(holderIsDead("garbage")).toBe(false);
  });

  it("a holder of another live process on this host is alive", () => {
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    expect(holderIsDead(`${hostname()}/${process.pid + 1}/x`)).toBe(false);
    expect(kill).toHaveBeenCalledWith(process.pid + 1, 0);
  });

  it("a holder whose process has exited (ESRCH) is dead", () => {
    vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error("no such process"), { code: "ESRCH" });
    });
    expect(holderIsDead(`${hostname()}/${process.pid + 1}/x`)).toBe(true);
  });

  it("a holder whose process belongs to another user (EPERM) is alive", () => {
    vi.spyOn(process, "kill").mockImplementation(() => {
      throw Object.assign(new Error("not permitted"), { code: "EPERM" });
    });
    expect(holderIsDead(`${hostname()}/${process.pid + 1}/x`)).toBe(false);
  });

  it("an error without a code is not taken for death", () => {
    vi.spyOn(process, "kill").mockImplementation(() => {
      throw new Error("odd");
    });
    expect(holderIsDead(`${hostname()}/${process.pid + 1}/x`)).toBe(false);
  });
});
