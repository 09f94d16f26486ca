/**
 * Refunds per second through `POST /v1/operations` with a private key: the real service (auth,
 * rules, reservation, outbox routing) calling the real sandbox gateway over HTTP, on PGlite and
 * PostgreSQL. The gateway and the client each run in their own process (as they would in
 * production), so the service's process measures the service. Refunds are spread over many paid
 * parents, 0.001 each of a large payment, so none runs out.
 *
 * Measured twice per store: first with no webhook URL configured (the operations path alone),
 * then with the operation webhook on, delivered by the same service process (`SVC_ROLE=all`) to
 * a receiver in its own process, as a merchant running one svc process would have it. After the
 * second window the bench waits for every webhook to be delivered and prints how long that took.
 */
import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../packages/service/src/config.js";
import { startService } from "../packages/service/src/server.js";
import { freePort } from "../test/support/free-port.js";
import { createMerchant } from "../test/support/merchant.js";
import { paidParent } from "../test/support/payments.js";
import { ADMIN_TOKEN, GATEWAY_SECRET, type Stack } from "../test/support/stack.js";
import type { BenchResult } from "./run.ts";
import { configureWebhooks } from "../test/support/webhooks.js";
import { startBenchReceiver } from "./support/receiver.js";
import { benchStores } from "./support/stores.js";

const PARENTS = 64;
const IN_FLIGHT = 64;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = { pglite: 4, postgres: 6 } as const;
const here = path.dirname(fileURLToPath(import.meta.url));

function forkTs(file: string, env: Record<string, string> = {}): ChildProcess {
  return fork(path.join(here, "support", file), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}
const nextMessage = <T>(child: ChildProcess) =>
  new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));

export default async function operationsBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const gatewayProcess = forkTs("gateway-process.ts", { BENCH_GATEWAY_SECRET: GATEWAY_SECRET });
  const { url: gatewayUrl } = await nextMessage<{ url: string }>(gatewayProcess);
  try {
    for (const store of await benchStores()) {
      const db = await store.open();
      const port = await freePort();
      const config = loadConfig(
        {},
        {
          port,
          host: "127.0.0.1",
          publicUrl: `http://127.0.0.1:${port}`,
          gatewayUrl,
          gatewayNotificationSecret: GATEWAY_SECRET,
          adminToken: ADMIN_TOKEN,
          logLevel: "silent",
          webhookAllowPrivate: true,
          // On PostgreSQL, the service opens its worker's own pool from the URL, as in production.
          ...(store.url(db) ? { databaseUrl: store.url(db) } : {}),
          // One key at benchmark speed: limits high enough never to refuse, but still counted.
          rateLimits: { windowSeconds: 10, perAddress: 1e9, perCredential: 1e9, authFailures: 1e9 },
        },
      );
      const service = await startService(config, { db });
      // The test helpers only need the service's URL and database.
      const stack = { url: service.url, gatewayUrl, db, service } as unknown as Stack;
      try {
        const m = await createMerchant(stack);
        const sessions: string[] = [];
        for (let i = 0; i < PARENTS; i++)
          sessions.push((await paidParent(stack, m, "sandbox", { amount: "100000.000" })).session_id);
        const refundsPerSecond = async () => {
          const load = forkTs("load-process.ts");
          load.send({
            url: service.url,
            key: m.privateKey,
            sessions,
            inFlight: IN_FLIGHT,
            warmupSeconds: WARMUP_SECONDS,
            seconds: MEASURE_SECONDS[store.kind],
          });
          const r = await nextMessage<{ ok: number; failed: number; seconds: number; firstFailure: string }>(
            load,
          );
          if (r.failed > 0) console.error(`  ${r.failed} refunds failed, e.g. ${r.firstFailure}`);
          return Math.round(r.ok / r.seconds);
        };
        const alone = await refundsPerSecond();
        console.error(`  ${store.kind}: ${alone} refunds/s`);
        results.push({
          name: `operations.${store.kind}.refunds_per_s`,
          value: alone,
          unit: "refund/s",
          ...(store.kind === "postgres" ? { target: "≥ 1000" } : {}),
        });

        const receiver = await startBenchReceiver();
        try {
          await configureWebhooks(stack, m, {
            operations_webhook_url: `${receiver.url}/ops`,
            notify_api_initiated: true,
          });
          const withWebhook = await refundsPerSecond();
          const windowEnd = Date.now();
          const undelivered = async () =>
            (
              await db.query<{ n: number }>(
                "select count(*)::int as n from webhook_deliveries where status in ('pending', 'retrying')",
              )
            )[0]!.n;
          while ((await undelivered()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
          const [delivered] = await db.query<{ n: number }>(
            "select count(*)::int as n from webhook_deliveries where status = 'succeeded'",
          );
          console.error(
            `  ${store.kind}: ${withWebhook} refunds/s with their webhooks; all ${delivered!.n} delivered ` +
              `${((Date.now() - windowEnd) / 1000).toFixed(1)} s after the window`,
          );
          results.push({
            name: `operations.${store.kind}.refunds_with_webhook_per_s`,
            value: withWebhook,
            unit: "refund/s",
          });
        } finally {
          receiver.stop();
        }
      } finally {
        await service.close();
        await db.close();
      }
    }
  } finally {
    gatewayProcess.send("stop");
  }
  return results;
}
