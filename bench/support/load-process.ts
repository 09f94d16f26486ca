/**
 * The operations bench's client, in its own process: keeps IN_FLIGHT refunds in flight against
 * the service for a warm-up and a measured window, then reports {ok, failed, seconds, cpuUs}.
 * Input (IPC): {url, key, sessions, inFlight, warmupSeconds, seconds, idempotencyKeys?}. It sends
 * "measuring" when the measured window starts, so the bench can read its counters then.
 * With `idempotencyKeys`, each request carries an `Idempotency-Key` of its own.
 *
 * Like wrk, it writes prebuilt HTTP/1.1 requests on keep-alive sockets and reads only the status
 * line and the framing of each answer: the client shares the machine's two cores with the
 * service, so every microsecond it spends is taken from the figure it measures. (A general HTTP
 * client cost ~0.7 ms of CPU per request here, most of what the service itself spends.)
 */
import net from "node:net";

interface Job {
  url: string;
  key: string;
  sessions: string[];
  inFlight: number;
  warmupSeconds: number;
  seconds: number;
  idempotencyKeys?: boolean;
}

/** One keep-alive connection sending a request, waiting for its whole answer, and so on. */
class Lane {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting?: (answer: { status: number; body: string }) => void;
  private readonly socket: net.Socket;
  readonly ready: Promise<void>;

  constructor(url: URL) {
    this.socket = net.connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.socket.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.parse();
    });
  }

  send(request: Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.write(request);
    });
  }

  private parse(): void {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString("latin1");
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
    if (!Number.isFinite(length)) throw new Error(`the service answered without content-length: ${head}`);
    if (this.buffer.length < end + 4 + length) return;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
    this.buffer = this.buffer.subarray(end + 4 + length);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ status: Number(head.slice(9, 12)), body });
  }

  close(): void {
    this.socket.destroy();
  }
}

process.once("message", async (job: Job) => {
  const url = new URL(job.url);
  // Each session's request, built once (its head and body around the key, with keys).
  const requests = job.sessions.map((sessionId) => {
    const body = JSON.stringify({ operation: "refund", session_id: sessionId, amount: "0.001" });
    const head =
      `POST /v1/operations HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
      `Authorization: Api-Key ${job.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    return { whole: Buffer.from(`${head}\r\n${body}`), head, tail: `\r\n${body}` };
  });
  let sent = 0;
  const request = (i: number) => {
    const r = requests[i % requests.length]!;
    return job.idempotencyKeys
      ? Buffer.from(`${r.head}Idempotency-Key: bench-${process.pid}-${sent++}\r\n${r.tail}`)
      : r.whole;
  };
  const lanes = Array.from({ length: job.inFlight }, () => new Lane(url));
  await Promise.all(lanes.map((lane) => lane.ready));
  let ok = 0;
  let failed = 0;
  let firstFailure = "";
  const run = (untilMs: number, count: boolean) =>
    Promise.all(
      lanes.map(async (lane, index) => {
        let i = index;
        while (performance.now() < untilMs) {
          const { status, body } = await lane.send(request(i++));
          if (!count) continue;
          if (status === 200) ok += 1;
          else {
            failed += 1;
            firstFailure ||= `${status} ${body.slice(0, 200)}`;
          }
        }
      }),
    );
  await run(performance.now() + job.warmupSeconds * 1000, false);
  process.send?.("measuring");
  const cpuAtStart = process.cpuUsage();
  const started = performance.now();
  await run(started + job.seconds * 1000, true);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  for (const lane of lanes) lane.close();
  // Its own CPU over the window (µs): the bench reads the other processes' from /proc.
  process.send?.({ ok, failed, seconds, firstFailure, cpuUs: cpu.user + cpu.system });
  process.exit(0);
});
