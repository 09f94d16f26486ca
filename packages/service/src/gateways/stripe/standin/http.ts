/** node:http helpers: bounded bodies and Stripe's answer headers. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { invalidRequest } from "./errors.js";

/** Stripe's request bodies are small; anything past this is refused. */
export const MAX_BODY_BYTES = 256 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw invalidRequest("Request body too large.", { status: 413, phase: "validation" });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-cache, no-store",
    ...headers,
  });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    // A form posting to itself and redirecting to the merchant: nothing else may run or frame it.
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' *; frame-ancestors 'none'",
  });
  res.end(html);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, "content-length": 0 });
  res.end();
}
