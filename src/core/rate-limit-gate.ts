/**
 * What the processes of a fleet share about the rate limit: how long none of them should send. The
 * limit is per partner (API document, Limits), so when one process meets a 429 with `Retry-After`
 * its neighbours would meet the same; they wait too instead of each finding out on its own.
 */
export interface RateLimitGate {
  /** Milliseconds the fleet must still wait before sending; 0 when the gate is open. */
  waitMs(): Promise<number>;
  /** Closes the gate for `ms` from now; a longer closure already in place is kept. */
  close(ms: number): Promise<void>;
}
