/**
 * Fault injection: the next N matching requests are answered (or dropped, or delayed) as the fault
 * says instead of, or before, the normal handling.
 */
// @ts-nocheck

export interface FaultSpec {
  /** Only requests with this method (any case). @default any method */
  method?: string;
  /**
   * Only requests to this path: an exact path (`/v1/orders/100001`), a route template
   * (`/v1/orders/{orderNumber}`), or a RegExp tested against the path. @default any path
   */
  path?: string | RegExp;
  /** How many matching requests the fault applies to. @default 1 */
  times?: number;
  /** Answer with this status and a problem document. */
  status?: number;
  /**
   * With `status`: handle the request first and answer the status only afterwards, so the work is
   * committed (POST /v1/orders creates its submission) yet the client sees a 5xx, as when the service
   * commits and then answers 503. A retry with the identical body must find the original submission
   * (API document, POST /v1/orders 6). @default false: the status replaces the work
   */
  after?: boolean;
  /** Problem `code` to send with `status` (any string, unknown codes included). @default the catalog's code for the status */
  code?: string;
  /**
   * Problem `detail`. @default the gateway's fixed generic sentence on a 401 and the fixed generic
   * sentence of `internal_error` on a 500, as the service sends them (API document, Authentication
   * failure and code catalog); "Injected fault." otherwise
   */
  detail?: string;
  /**
   * `Retry-After` header value: seconds, or an HTTP date string. @default 1 on a 429, which always
   * carries one (API document, code catalog: rate_limit_exceeded); none otherwise
   */
  retryAfter?: number | string;
  /** The edge firewall's 403: no body, no problem document, no requestId (API document, Errors rule 2). */
  firewall?: true;
  /** Wait this many real milliseconds before answering (or before dropping). */
  delayMs?: number;
  /**
   * Drop the connection: `"before"` the service did the work, or `"after"` it committed it (the
   * client cannot tell which). `sandbox.fetch` then rejects with a `TypeError` as `fetch` does.
   */
  drop?: "before" | "after";
}

export interface ActiveFault extends FaultSpec {
  /** Matching requests still to be affected. */
  remaining: number;
}

export class FaultList {
  private readonly faults: ActiveFault[] = [];

  inject(spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = { ...spec, remaining: spec.times ?? 1 };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults.length = 0;
  }

  /** Faults still waiting for a request. */
  get pending(): readonly ActiveFault[] {
    return this.faults.filter((f) => f.remaining > 0);
  }

  /** The first fault matching the request, consumed once; undefined when none applies. */
  take(method: string, pathname: string, template: string | undefined): ActiveFault | undefined {
    const fault = this.faults.find(
      (f) => f.remaining > 0 && matches(f, method, pathname, template),
    );
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }
}

function matches(
  f: FaultSpec,
  method: string,
  pathname: string,
  template: string | undefined,
): boolean {
  if (f.method && f.method.toUpperCase() !== method.toUpperCase()) return false;
  if (f.path === undefined) return true;
  if (f.path instanceof RegExp) return f.path.test(pathname);
  return f.path === pathname || f.path === template;
}
