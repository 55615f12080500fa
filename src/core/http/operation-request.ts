import { decodeBody } from "../money";
import { type ApiOperationId, methodOf, type Operation } from "./operation";
import type { WireAnswer } from "./wire";

/** @internal One API operation as a request: its reading shared by every call, no closures made per call. */
export class OperationRequest<T> {
  readonly method: "GET" | "POST";
  readonly operation: ApiOperationId;

  constructor(
    private readonly described: Operation,
    readonly url: string,
    readonly path: string,
    readonly headers: Record<string, string>,
    readonly body: string | undefined,
    readonly auth: boolean,
  ) {
    this.method = methodOf(described);
    this.operation = described.operationId;
  }

  // As text: JSON.parse would round number-encoded money to a double.
  parse(text: string): T {
    const { described } = this;
    if (text === "" || described.decode === false) return undefined as T;
    return (described.decoder ?? decodeBody)(described.operationId, text) as T;
  }

  async read(answer: WireAnswer): Promise<T> {
    return this.parse(await answer.text());
  }
}
