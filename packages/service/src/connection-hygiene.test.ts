/**
 * Slow and silent clients are cut: sockets that send nothing, headers or a body trickled a byte
 * at a time, a keep-alive connection left idle and a socket silent in the middle of its request
 * are all closed by the service within their configured bound (shortened here), over real TCP on
 * loopback, and the service lets go of each one's file descriptor. The `svc listen` event stream,
 * a response that may rightly be quiet for long, is not cut: it sends comment lines more often
 * than the idle timeout.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant } from "../../../test/support/merchant.js";
import { serverHolds } from "../../../test/support/sockets.js";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { until } from "../../../test/support/until.js";

const HEADERS_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 6_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
const IDLE_TIMEOUT_MS = 3_000;
/** Node checks the request and headers timeouts this often (app.ts). */
const CHECK_MS = 1_000;
/** How late past its bound a socket may be closed: the check interval and a busy machine's delay. */
const LATE_MS = CHECK_MS + 1_000;
const SILENT_SOCKETS = 5;
const TRICKLE_EVERY_MS = 100;

interface Opened {
  socket: net.Socket;
  /** The client's port: with the service's, it names the service's end of the connection. */
  localPort: number;
  closed: Promise<number>;
  received: () => string;
  openedAt: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function open(url: string): Promise<Opened> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (data += chunk));
    socket.once("error", () => undefined);
    socket.once("connect", () => {
      const openedAt = Date.now();
      resolve({
        socket,
        localPort: socket.localPort!,
        openedAt,
        received: () => data,
        closed: new Promise((done) => socket.once("close", () => done(Date.now() - openedAt))),
      });
    });
    socket.once("error", reject);
  });
}

/** Writes `text` one byte every TRICKLE_EVERY_MS until the socket closes; returns how many bytes went out. */
async function trickle(opened: Opened, text: string): Promise<number> {
  let sent = 0;
  for (const char of text) {
    if (opened.socket.destroyed || opened.socket.writableEnded) break;
    opened.socket.write(char);
    sent += 1;
    await new Promise((resolve) => setTimeout(resolve, TRICKLE_EVERY_MS));
  }
  return sent;
}

describe("connection hygiene", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("pglite", {
      config: {
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
      },
    });
  });
  afterAll(() => stack?.close());
  const servicePort = () => Number(new URL(stack.url).port);
  /** The service let go of the connection's descriptor (its end is closed, not just the client's). */
  const released = (opened: Opened) => !serverHolds(servicePort(), opened.localPort);

  it("sockets that send nothing are closed after the headers timeout, descriptors and all", async () => {
    const opened = await Promise.all(Array.from({ length: SILENT_SOCKETS }, () => open(stack.url)));
    await until(() => (opened.some(released) ? undefined : true), "the service to accept every socket");
    const after = await Promise.all(opened.map((o) => o.closed));
    for (const [i, ms] of after.entries()) {
      expect(ms, `socket ${i}`).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(ms, `socket ${i}`).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_MS);
      expect(opened[i]!.received()).toMatch(/^HTTP\/1\.1 408|^$/);
      expect(released(opened[i]!), `socket ${i}`).toBe(true);
    }
  });

  it("headers trickled a byte at a time are cut at the headers timeout, long before they end", async () => {
    const opened = await open(stack.url);
    const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(300)}\r\n\r\n`;
    const sent = await trickle(opened, headers);
    const after = await opened.closed;
    expect(sent).toBeLessThan(headers.length);
    expect(after).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_MS);
    expect(opened.received()).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it("a body trickled a byte at a time is cut at the request timeout, long before it ends", async () => {
    const opened = await open(stack.url);
    const body = JSON.stringify({ type: "e_commerce", order_no: "x".repeat(400) });
    opened.socket.write(
      `POST /v1/checkout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const sent = await trickle(opened, body);
    const after = await opened.closed;
    // 400+ bytes at 10 a second would take 40 s; the request timeout ends it after ~6 s.
    expect(sent).toBeLessThan(body.length);
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(REQUEST_TIMEOUT_MS + LATE_MS);
  });

  it("a keep-alive connection left idle after its request is closed after the keep-alive timeout", async () => {
    const opened = await open(stack.url);
    opened.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    const after = await opened.closed;
    expect(opened.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(after).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + LATE_MS);
    expect(released(opened)).toBe(true);
  });

  it("a socket silent for the idle timeout is closed, even with its request unfinished", async () => {
    // Authenticated, so the route waits for the body (without a key it answers 401 at once).
    const m = await createMerchant(stack);
    const opened = await open(stack.url);
    // Headers done, then one byte of the promised body and no more: the idle timeout is due
    // before the request's.
    opened.socket.write(
      `POST /v1/checkout HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${apiKey(m.privateKey)}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    const after = await opened.closed;
    expect(opened.received()).toBe("");
    expect(after).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(Math.min(REQUEST_TIMEOUT_MS, IDLE_TIMEOUT_MS + LATE_MS));
    expect(released(opened)).toBe(true);
  });

  it("the svc listen event stream stays open across a quiet period longer than every timeout", async () => {
    const m = await createMerchant(stack);
    const started = await api(stack, "POST", "/v1/webhooks/listen", { auth: apiKey(m.privateKey), body: {} });
    expect(started.status).toBe(201);
    const opened = await open(stack.url);
    opened.socket.write(
      `GET ${started.json.stream_path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${apiKey(m.privateKey)}\r\n\r\n`,
    );
    // No delivery comes: nothing but the stream's comment lines crosses the socket.
    const quietMs = IDLE_TIMEOUT_MS + LATE_MS;
    const cut = await Promise.race([opened.closed.then(() => true), sleep(quietMs).then(() => false)]);
    expect(cut, "the stream was cut").toBe(false);
    expect(opened.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(opened.received()).toContain("event: ready");
    expect(opened.received()).toContain(": keep-alive");
    opened.socket.destroy();
    await opened.closed;
  });
});
