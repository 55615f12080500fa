import { SHARED_POSTGRES_ENV, startPostgres } from "./postgres";

/**
 * A vitest global setup that starts one PostgreSQL server for the whole run and tells every test
 * file to use it (see `SHARED_POSTGRES_ENV`). Mutation testing of the PostgreSQL store uses it:
 * its test files then create databases on a server that is already up.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const server = await startPostgres();
  const { port } = new URL(server.base);
  process.env[SHARED_POSTGRES_ENV] = JSON.stringify({ dir: server.dir, port: Number(port) });
  return () => server.stop();
}
