import { PartnerOrdersError } from "./errors";

export interface PageData<T> {
  data: T[];
  nextCursor: string | null;
  response: Response;
}

export type PageFetcher<T> = (cursor: string | undefined) => Promise<PageData<T>>;

/** A page of a list, with the way to the next. */
export interface Page<T> {
  /** This page's items, in the service's order. */
  data: T[];
  /** Opaque; store it to resume later with `{ cursor }`. Null on the last page. */
  nextCursor: string | null;
  /** True while `nextCursor` is not null. A page may be empty and still have a next one. */
  hasNextPage(): boolean;
  /** The following page. Throws when there is none (check `hasNextPage()`). */
  getNextPage(): Promise<Page<T>>;
}

/** Options of {@link Paginated.toArray}. */
export interface ToArrayOptions {
  /** The most items collected; a longer list throws instead of filling memory. @default 10000 */
  max?: number;
}

const defaultToArrayMax = 10_000;

/** `await` it for the first page, `for await` it for every item; it stops only at a null cursor. */
export class Paginated<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  #first: Promise<PageData<T>> | undefined;

  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly startCursor: string | undefined,
  ) {}

  #firstPage(): Promise<PageData<T>> {
    this.#first ??= this.#fetch(this.startCursor);
    return this.#first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a list is also its first page (README, "Listing and paging")
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage()
      .then((page) => this.#toPage(page, this.#trail(), 0))
      .then(onfulfilled, onrejected);
  }

  /** The first page together with its HTTP response. */
  async withResponse(): Promise<{
    /** The first page. */
    data: Page<T>;
    /** The HTTP response of the first page, its body already read. */
    response: Response;
  }> {
    const page = await this.#firstPage();
    return { data: this.#toPage(page, this.#trail(), 0), response: page.response };
  }

  /** Every page, in order; the first may already have been fetched by `await`. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.#firstPage();
    const trail = this.#trail();
    for (let depth = 0; ; depth++) {
      yield this.#toPage(page, trail, depth);
      const cursor = page.nextCursor;
      if (cursor === null) return;
      page = await this.#follow(cursor, trail, depth);
    }
  }

  /** Every item of every page, each page fetched once the one before is consumed. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, in one array; item `max + 1` throws instead of filling memory. */
  async toArray(options: ToArrayOptions = {}): Promise<T[]> {
    const max = options.max ?? defaultToArrayMax;
    if (!(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 0))) {
      throw new PartnerOrdersError("toArray({ max }) takes a whole number >= 0, or Infinity.");
    }
    const items: T[] = [];
    for await (const item of this) {
      if (items.length >= max) {
        throw new PartnerOrdersError(
          `The list has more than ${max} items, the most toArray() collects; iterate it with ` +
            "`for await` to keep memory constant, or pass a larger { max }.",
        );
      }
      items.push(item);
    }
    return items;
  }

  async #fetch(cursor: string | undefined): Promise<PageData<T>> {
    const page = await this.fetchPage(cursor);
    // A first page never matches: its cursor is undefined, nextCursor a string or null.
    if (page.nextCursor === cursor) throw repeatedCursor();
    return page;
  }

  // A cursor followed before at this depth or less closes a cycle; a retry of one page does not.
  #trail(): Map<string | undefined, number> {
    return new Map([[this.startCursor, 0]]);
  }

  #follow(
    cursor: string,
    trail: Map<string | undefined, number>,
    depth: number,
  ): Promise<PageData<T>> {
    // Stryker disable next-line EqualityOperator: equivalent, a page whose next cursor is the one that fetched it is refused on arrival (#fetch), so no cursor is found at exactly this depth
    if ((trail.get(cursor) ?? Number.POSITIVE_INFINITY) <= depth) throw repeatedCursor();
    trail.set(cursor, depth + 1);
    return this.#fetch(cursor);
  }

  #toPage(page: PageData<T>, trail: Map<string | undefined, number>, depth: number): Page<T> {
    const { data, nextCursor } = page;
    return {
      data,
      nextCursor,
      hasNextPage: () => nextCursor !== null,
      getNextPage: async () => {
        if (nextCursor === null) throw new PartnerOrdersError("There is no next page.");
        return this.#toPage(await this.#follow(nextCursor, trail, depth), trail, depth + 1);
      },
    };
  }
}

function repeatedCursor(): PartnerOrdersError {
  return new PartnerOrdersError(
    "The service returned a cursor this listing had already followed; stopping instead of " +
      "looping. Restart the listing without a cursor.",
  );
}
