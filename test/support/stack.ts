/**
 * A real stack for HTTP tests: the sandbox gateway and the service, each listening on loopback,
 * on the store under test. Nothing of ours is mocked; `now` can be moved for expiry tests.
 */
import { loadConfig, type ServiceConfig } from "../../packages/service/src/config.js";
import type { Db } from "../../packages/service/src/db/client.js";
import { startSandboxGateway } from "../../packages/service/src/gateways/sandbox/server.js";
import { type RunningService, startService } from "../../packages/service/src/server.js";
import { freePort } from "./free-port.js";
import { type StoreKind, testDb } from "./stores.js";

const PORT_ATTEMPTS = 5;

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const GATEWAY_SECRET = "test-gateway-secret-0123456789abcdef";
/** The key test services seal gateway credentials with (32 bytes, base64; a test value, never a real one). */
export const SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

export interface Stack {
  kind: StoreKind;
  db: Db;
  config: ServiceConfig;
  service: RunningService;
  url: string;
  gatewayUrl: string;
  /** Shifts the service's clock (expiry tests). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startStack(
  kind: StoreKind,
  options: {
    queuedDelayMs?: number;
    /** The sandbox answers operations this long after booking them (a gateway slower than svc's timeout). */
    operationAnswerDelayMs?: number;
    /** The same for payments. */
    paymentAnswerDelayMs?: number;
    /** Waits before the sandbox's notification tries (default 50, 100, 200 ms); a long one keeps them away. */
    notificationRetryDelaysMs?: readonly number[];
    config?: Partial<ServiceConfig>;
    db?: Db;
  } = {},
): Promise<Stack> {
  const db = options.db ?? (await testDb(kind));
  const gateway = await startSandboxGateway({
    port: 0,
    notificationSecret: GATEWAY_SECRET,
    queuedDelayMs: options.queuedDelayMs ?? 100,
    operationAnswerDelayMs: options.operationAnswerDelayMs ?? 0,
    paymentAnswerDelayMs: options.paymentAnswerDelayMs ?? 0,
    notificationRetryDelaysMs: options.notificationRetryDelaysMs ?? [50, 100, 200],
  });
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  // The service must know its public URL before it listens, so the port is picked first; another
  // test process can take it in between, so a port in use means: pick another and try again.
  let config: ServiceConfig | undefined;
  let service: RunningService | undefined;
  for (let attempt = 1; !service; attempt++) {
    const port = await freePort();
    config = loadConfig(
      {},
      {
        port,
        host: "127.0.0.1",
        publicUrl: `http://127.0.0.1:${port}`,
        gatewayUrl: gateway.url,
        gatewayNotificationSecret: GATEWAY_SECRET,
        adminToken: ADMIN_TOKEN,
        secretsKey: SECRETS_KEY,
        logLevel: "silent",
        webhookAllowPrivate: true,
        // Tests send far more than a client may from one address; the limits are tested on their own.
        rateLimits: {
          windowSeconds: 10,
          perAddress: 1_000_000,
          perCredential: 1_000_000,
          authFailures: 1_000_000,
        },
        ...options.config,
      },
    );
    try {
      service = await startService(config, { db, now });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
  return {
    kind,
    db,
    config: config!,
    service,
    url: service.url,
    gatewayUrl: gateway.url,
    advance(ms) {
      offsetMs += ms;
    },
    async close() {
      await service.close();
      await gateway.close();
    },
  };
}
