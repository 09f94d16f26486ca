/** A webhook receiver for tests: a node:http server on loopback recording every request. */
import http from "node:http";

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The parsed body, read field by field in assertions. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON, read field by field
  json: any;
  /** When the request line arrived (Date.now()). */
  startedAt: number;
  receivedAt: number;
  /** When the answer was written, or the connection closed before it (see `aborted`). */
  finishedAt?: number;
  /** The client's connection closed before the answer was written (e.g. the client died). */
  aborted?: boolean;
  /** The client's local port: tells connections (and so client processes) apart. */
  remotePort?: number | undefined;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides the response per request; default 200 "ok". */
  respond: (
    req: ReceivedRequest,
    index: number,
  ) => {
    status: number;
    headers?: Record<string, string>;
    body?: string;
    delayMs?: number;
    /** Holds the answer until this settles (after delayMs, if both are given). */
    until?: Promise<unknown>;
    /**
     * Sends the status and headers, then one byte of body every trickleMs and never ends it: the
     * answer lasts until the client closes the connection (`aborted` then).
     */
    trickleMs?: number;
  };
  /** Resolves when `count` requests (optionally on `path`) have arrived, or rejects after timeoutMs. */
  waitFor(count: number, options?: { path?: string; timeoutMs?: number }): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** `port`: listen on this one (a receiver coming back where a closed one was); default any. */
export async function startReceiver(options: { port?: number } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: "",
    requests,
    respond: () => ({ status: 200, body: "ok" }),
    async waitFor(count, options = {}) {
      const matching = () => requests.filter((r) => !options.path || r.path === options.path);
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (matching().length < count) {
        if (Date.now() > deadline)
          throw new Error(
            `expected ${count} webhook requests${options.path ? ` on ${options.path}` : ""}, got ${matching().length}`,
          );
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            resolve();
          };
          waiters.add(done);
          setTimeout(done, 50);
        });
      }
      return matching();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const startedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const entry: ReceivedRequest = {
        path: req.url ?? "/",
        headers: req.headers,
        body,
        json,
        startedAt,
        receivedAt: Date.now(),
        remotePort: req.socket.remotePort,
      };
      requests.push(entry);
      res.on("close", () => {
        if (entry.finishedAt !== undefined) return;
        entry.finishedAt = Date.now();
        entry.aborted = true;
      });
      const answer = receiver.respond(entry, requests.length - 1);
      const reply = () => {
        if (res.destroyed) return;
        if (answer.trickleMs) {
          res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
          res.flushHeaders();
          const drip = setInterval(() => res.write("."), answer.trickleMs);
          res.on("close", () => clearInterval(drip));
          return;
        }
        entry.finishedAt = Date.now();
        entry.aborted = false;
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
        res.end(answer.body ?? "");
      };
      const afterDelay = () => (answer.until ? void answer.until.then(reply, reply) : reply());
      if (answer.delayMs) setTimeout(afterDelay, answer.delayMs);
      else afterDelay();
      for (const w of [...waiters]) w();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return receiver;
}
