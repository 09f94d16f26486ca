/**
 * The sandbox gateways' own HTTP server: a real peer of svc with its own listener and its own
 * notification secret, so the sandbox path is the path a production gateway takes.
 *
 * @example
 * const sandbox = await startSandboxGateway({ port: 0, notificationSecret: "sandbox_secret" });
 * const adapter = new SandboxGatewayAdapter({ kind: "sandbox", baseUrl: sandbox.url });
 * // … later
 * await sandbox.close();
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { SandboxContext } from "./context.js";
import { NOTIFY_RETRY_DELAYS_MS, Notifier } from "./notifier.js";
import { route } from "./router.js";
import { SandboxState } from "./state.js";

/** How long a queued operation waits before its final result is notified. */
export const QUEUED_DELAY_MS = 2_000;

export interface SandboxGatewayOptions {
  host?: string;
  /** 0 picks a free ephemeral port. */
  port?: number;
  /** HMAC secret of the `sandbox-signature` header; svc's gateway setting holds the same one. */
  notificationSecret: string;
  queuedDelayMs?: number;
  /** Base URL browsers use for gateway pages when it differs from the listening address (a proxy). */
  publicUrl?: string;
  /**
   * Delays every answer to `POST /operations` by this long after booking it (default 0): tests
   * use it for a gateway that refunds but answers after svc's timeout.
   */
  operationAnswerDelayMs?: number;
  /** Delays every answer to `POST /payments` by this long after making the payment (default 0). */
  paymentAnswerDelayMs?: number;
  /** Waits between notification tries; tests shorten it. */
  notificationRetryDelaysMs?: readonly number[];
}

export interface SandboxGateway {
  /** Base URL of the listener, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  close(): Promise<void>;
}

export async function startSandboxGateway(options: SandboxGatewayOptions): Promise<SandboxGateway> {
  if (!options.notificationSecret)
    throw new Error("startSandboxGateway: notificationSecret is required to sign notifications");
  const host = options.host ?? "127.0.0.1";
  let url = "";
  const ctx: SandboxContext = {
    state: new SandboxState(),
    notifier: new Notifier(
      options.notificationSecret,
      options.notificationRetryDelaysMs ?? NOTIFY_RETRY_DELAYS_MS,
    ),
    publicUrl: () => (options.publicUrl ?? url).replace(/\/+$/, ""),
    queuedDelayMs: options.queuedDelayMs ?? QUEUED_DELAY_MS,
    operationAnswerDelayMs: options.operationAnswerDelayMs ?? 0,
    paymentAnswerDelayMs: options.paymentAnswerDelayMs ?? 0,
    timers: new Set(),
  };
  const server = createServer((req, res) => void route(ctx, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    async close() {
      for (const timer of ctx.timers) clearTimeout(timer);
      ctx.timers.clear();
      await ctx.notifier.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
