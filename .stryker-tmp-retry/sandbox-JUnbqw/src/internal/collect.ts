/** Every item of an async iterable, in order (`Array.fromAsync` is not in Node 20). */
// @ts-nocheck

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
