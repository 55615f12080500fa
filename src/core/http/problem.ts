import {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EdgeFirewallError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  type Problem,
  RateLimitError,
  ServiceUnavailableError,
  UnprocessableEntityError,
} from "../errors";
import { redactDeep } from "../redact";
import { parseRetryAfter } from "./retry";

const classByStatus: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The single factory from an error answer to an error; any `body` (text, parsed, HTML) is safe. */
export function errorFromResponse(
  method: string,
  path: string,
  response: { status: number; headers: Headers },
  body: unknown,
  nowMs: number = Date.now(),
  redact?: (text: string) => string,
): APIError {
  const parsed = parseProblem(body, response.status);
  const problem = parsed && redact ? (redactDeep(parsed, redact) as Problem) : parsed;
  const init: APIErrorInit = {
    status: response.status,
    method,
    path,
    headers: response.headers,
    problem,
  };
  if (response.status === 403 && !problem) return new EdgeFirewallError(init);
  if (response.status === 429) {
    return new RateLimitError({
      ...init,
      retryAfterSeconds: parseRetryAfter(response.headers, nowMs),
    });
  }
  const ErrorClass = classByStatus[response.status] ?? APIError;
  return new ErrorClass(init);
}

function parseProblem(body: unknown, status: number): Problem | undefined {
  let value = body;
  if (typeof body === "string") {
    // Stryker disable BlockStatement: equivalent, a text left unparsed is refused by the check below too
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
    // Stryker restore BlockStatement
  }
  // Stryker disable next-line ConditionalExpression: a primitive has no string code or title either
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const doc = value as Record<string, unknown>;
  if (typeof doc.code !== "string" && typeof doc.title !== "string") return undefined;
  return {
    ...doc,
    type: typeof doc.type === "string" ? doc.type : "about:blank",
    title: typeof doc.title === "string" ? doc.title : "",
    status: typeof doc.status === "number" ? doc.status : status,
    code: typeof doc.code === "string" ? doc.code : "",
    detail: typeof doc.detail === "string" ? doc.detail : "",
    requestId: typeof doc.requestId === "string" ? doc.requestId : "",
  };
}
