import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that can lose the answer to a COMMIT: the COMMIT reaches the
 * server and is carried out, then the connection is cut before the client hears "COMMIT". The one
 * case where a client cannot know whether its transaction landed.
 */
export interface CommitCutter {
  /** The port to connect to instead of the server's. */
  port: number;
  /** The next COMMIT sent through the proxy loses its answer. */
  loseNextCommitAnswer(): void;
  /** How many COMMIT answers were lost so far. */
  readonly lost: number;
  close(): Promise<void>;
}

/** A simple-protocol query message carries its text NUL-terminated. */
const COMMIT = Buffer.from("COMMIT\u0000");

export async function startCommitCutter(target: { host: string; port: number }) {
  let armed = false;
  let lost = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let cutOnAnswer = false;
    client.on("data", (chunk: Buffer) => {
      if (armed && chunk.includes(COMMIT)) {
        armed = false;
        cutOnAnswer = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (cutOnAnswer) {
        // The server has committed and answered: the client never hears it.
        lost++;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cutter: CommitCutter = {
    port: (server.address() as { port: number }).port,
    loseNextCommitAnswer() {
      armed = true;
    },
    get lost() {
      return lost;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return cutter;
}
