import { hostname } from "node:os";

/**
 * Names of the mirrors of this process that are open. A lease or a writer claim names its holder
 * `host/pid/id`; a store that finds one from this host can tell whether it is still alive: its
 * process must exist, and when that process is this one, the mirror must still be open (a mirror
 * restarted in the same process, or a container whose pid is always 1, finds its own stale claim).
 */
const open = new Set<string>();

/** A new holder name for a mirror of this process, alive until {@link retireHolder}. */
export function newHolder(): string {
  const holder = `${hostname()}/${process.pid}/${crypto.randomUUID()}`;
  open.add(holder);
  return holder;
}

/** The mirror closed: its claims are stale from now on. */
export function retireHolder(holder: string): void {
  open.delete(holder);
}

/** The host and pid a holder name carries; undefined for a name of another form. */
export function holderProcess(holder: string): { host: string; pid: number } | undefined {
  const match = /^(.*)\/(\d+)\/[^/]+$/.exec(holder);
  if (!match) return undefined;
  return { host: match[1] as string, pid: Number(match[2]) };
}

/**
 * True when `holder` is known to be gone: it ran on this host and its process has exited, or it
 * was a mirror of this process that has closed. A holder on another host is never known dead here.
 */
export function holderIsDead(holder: string): boolean {
  const owner = holderProcess(holder);
  if (!owner || owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return !open.has(holder);
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as { code?: string }).code === "ESRCH";
  }
}
