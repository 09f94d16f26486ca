import { fail } from "./errors.js";

/**
 * A request body exactly as sent or received on the wire.
 *
 * @example
 * const rawBody: RawBody = await request.arrayBuffer(); // or a string, Buffer or Uint8Array
 */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** What to do when a body is not raw. */
export const RAW_BODY = "pass the raw body (string or bytes), not a re-serialised object.";

/** The raw body as HMAC input: bytes, or a string hashed as UTF-8; anything else throws. */
export function checkBody(body: unknown): string | Uint8Array {
  return typeof body === "string" || body instanceof Uint8Array
    ? body
    : body instanceof ArrayBuffer
      ? new Uint8Array(body)
      : fail("invalid_body", `Body is ${body === null ? "null" : typeof body}: ${RAW_BODY}`);
}
