/** Small node:http helpers of the stand-in. */
import type { IncomingMessage, ServerResponse } from "node:http";

/** The largest request body the stand-in reads, in bytes (KNET's requests are a few hundred). */
export const BODY_MAX_BYTES = 64 * 1024;

export class BodyTooLarge extends Error {}

/** The request body as UTF-8 text; BodyTooLarge beyond BODY_MAX_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_MAX_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

export const sendHtml = (res: ServerResponse, status: number, html: string) =>
  send(res, status, "text/html; charset=utf-8", html);

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, "content-length": 0, "cache-control": "no-store" });
  res.end();
}
