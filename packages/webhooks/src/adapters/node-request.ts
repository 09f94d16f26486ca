/**
 * What the Node adapter reads of a request, written without Node's types so that the root entry,
 * which re-exports it, type-checks in browser and edge projects (no `@types/node`, no
 * `skipLibCheck`). Node's `IncomingMessage`, Express's `Request` and Connect's all fit it.
 *
 * @example
 * import type { NodeWebhookRequest } from "@svc/webhooks";
 * http.createServer((req, res) => {
 *   const request: NodeWebhookRequest = req; // what webhookMiddleware reads of it
 * });
 */
export interface NodeWebhookRequest {
  method?: string | undefined;
  url?: string | undefined;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Set when a framework's body parser ran before the adapter (`express.raw()` gives bytes). */
  body?: unknown;
  /** True once the body was consumed, e.g. by a parser that did not keep the raw bytes. */
  readableEnded: boolean;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  resume(): unknown;
}
