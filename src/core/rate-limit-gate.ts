/** How long none of a fleet's processes should send: the rate limit is per partner. */
export interface RateLimitGate {
  /** Milliseconds the fleet must still wait before sending; 0 when the gate is open. */
  waitMs(): Promise<number>;
  /** Closes the gate for `ms` from now; a longer closure already in place is kept. */
  close(ms: number): Promise<void>;
}
