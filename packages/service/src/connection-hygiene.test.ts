/**
 * Slow and silent clients are cut: a socket that sends nothing, headers or a body trickled a
 * byte at a time, and a keep-alive connection left idle are all closed by the service within
 * their configured bound (shortened here), over real TCP on loopback, with no key needed.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.js";

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;
const IDLE_TIMEOUT_MS = 3_000;
/** Node checks the request and headers timeouts this often (app.ts). */
const CHECK_MS = 1_000;
const TRICKLE_EVERY_MS = 100;

interface Opened {
  socket: net.Socket;
  closed: Promise<number>;
  received: () => string;
  openedAt: number;
}

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

  it("a socket that sends nothing is closed after the headers timeout", async () => {
    const opened = await open(stack.url);
    const after = await opened.closed;
    expect(after).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_MS + 2_000);
  });

  it("headers trickled a byte at a time are cut at the headers timeout, long before they end", async () => {
    const opened = await open(stack.url);
    const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(300)}\r\n\r\n`;
    const sent = await trickle(opened, headers);
    const after = await opened.closed;
    expect(sent).toBeLessThan(headers.length);
    expect(after).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_MS + 2_000);
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
    // 400+ bytes at 10 a second would take 40 s; the request timeout ends it after ~2 s.
    expect(sent).toBeLessThan(body.length);
    expect(after).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_MS + 2_000);
  });

  it("a keep-alive connection left idle after its request is closed after the keep-alive timeout", async () => {
    const opened = await open(stack.url);
    opened.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    const after = await opened.closed;
    expect(opened.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(after).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(after).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + CHECK_MS + 2_000);
  });
});
