/** Small node:http helpers for the sandbox server: bounded body reading and JSON/HTML answers. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WireError } from "./wire.js";

/** Bodies above this are refused with 413; nothing the sandbox accepts comes close. */
export const MAX_BODY_BYTES = 64 * 1024;

/** An error that becomes a JSON answer with this HTTP status (thrown by handlers). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(413, "body_too_large", `bodies are limited to ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON object body; anything else is a 400 that says what was wrong. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new HttpError(
      400,
      "invalid_json",
      "the body must be a JSON object (Content-Type: application/json)",
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new HttpError(400, "invalid_json", "the body must be a JSON object, not an array or a scalar");
  }
  return parsed as Record<string, unknown>;
}

export function sendJson(res: ServerResponse, statusCode: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(statusCode, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, statusCode: number, code: string, message: string): void {
  const body: WireError = { error: code, message };
  sendJson(res, statusCode, body);
}

export function sendHtml(res: ServerResponse, statusCode: number, html: string): void {
  res.writeHead(statusCode, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    // The page is a form that posts to itself; nothing else may run or frame it.
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' *; frame-ancestors 'none'",
  });
  res.end(html);
}

export function redirectTo(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, "content-length": 0 });
  res.end();
}
