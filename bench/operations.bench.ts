/**
 * Refunds per second through `POST /v1/operations` with a private key: the real service (auth,
 * rules, reservation, outbox routing) calling the real sandbox gateway over HTTP, on PGlite and
 * PostgreSQL. The gateway and the client each run in their own process (as they would in
 * production), so the service's process measures the service. Refunds are spread over many paid
 * parents, 0.001 each of a large payment, so none runs out. No webhook URL is configured, so the
 * delivery worker stays idle and the figure is the operations path alone.
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
        const rate = Math.round(r.ok / r.seconds);
        console.error(`  ${store.kind}: ${rate} refunds/s`);
        results.push({
          name: `operations.${store.kind}.refunds_per_s`,
          value: rate,
          unit: "refund/s",
          ...(store.kind === "postgres" ? { target: "≥ 1000" } : {}),
        });
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
