import { RequestValidationError, type Violation } from "./errors";

// Refused, not dropped, which would hide a bug; a given User-Agent follows the SDK's own.
const ownedHeaders = ["authorization", "content-type", "accept"];

/** Never quotes a value. */
export function headerViolations(headers: unknown, path: string): Violation[] {
  if (headers === undefined) return [];
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    return [{ path, message: "must map header names to strings" }];
  }
  const violations: Violation[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const at = `${path}[${JSON.stringify(name)}]`;
    const lower = name.toLowerCase();
    if (ownedHeaders.includes(lower)) {
      const hint =
        lower === "authorization" ? " from the credential (pass { accessToken } for your own)" : "";
      violations.push({ path: at, message: `cannot be set: the SDK sets it${hint}` });
    } else if (typeof value !== "string" || !isValidHeader(name, value)) {
      violations.push({ path: at, message: "is not a valid header with a string value" });
    }
  }
  return violations;
}

function isValidHeader(name: string, value: string): boolean {
  try {
    new Headers([[name, value]]);
  } catch {
    return false;
  }
  return true;
}

export function resolveHeaders(
  headers: Record<string, string> | undefined,
): Record<string, string> {
  const violations = headerViolations(headers, "defaultHeaders");
  if (violations.length) throw new RequestValidationError(violations, "client options");
  return mergeHeaders({}, headers);
}

export function mergeHeaders(
  defaults: Record<string, string>,
  call: Record<string, string> | undefined,
): Record<string, string> {
  if (call === undefined) return defaults;
  const merged = { ...defaults };
  for (const [name, value] of Object.entries(call)) merged[name.toLowerCase()] = value;
  return merged;
}
