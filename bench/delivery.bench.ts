/**
 * Webhook delivery: the real DeliveryWorker draining a committed outbox into a receiver in its
 * own process, on PGlite and PostgreSQL, beside the ceiling of raw keep-alive POSTs of the same
 * body to the same receiver (`raw_http.reqs_per_s`); and commit → receipt latency at an offered
 * 1,000 msg/s on PostgreSQL, each message committed in its own transaction: from the worker's
 * process (SVC_ROLE=all, woken in-process) and from a producer process of its own (API processes
 * beside SVC_ROLE=worker processes, woken by NOTIFY).
 */
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import type { Db } from "../packages/service/src/db/client.js";
import { createMetrics } from "../packages/service/src/metrics/metrics.js";
import { OutboxSignal } from "../packages/service/src/webhooks/outbox.js";
import { produce } from "./support/produce.js";
import { DeliveryWorker } from "../packages/service/src/webhooks/worker.js";
import type { BenchResult } from "./run.ts";
import { type BenchReceiver, startBenchReceiver, wallMs } from "./support/receiver.js";
import { benchStores } from "./support/stores.js";
import { seedOutboxMerchant } from "../test/support/outbox-merchant.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const RAW_SECONDS = 3;
const RAW_IN_FLIGHT = 256;
/** Same socket budget as the worker's agent, so the ceiling is like for like. */
const CONNECTIONS = 64;
const DRAIN_MESSAGES = { pglite: 5_000, postgres: 30_000 } as const;
const DRAIN_TIMEOUT_MS = 120_000;
const OFFERED_PER_SECOND = 1_000;
const OFFERED_SECONDS = 5;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** A realistic operation webhook body (~750 bytes). */
const BODY = JSON.stringify({
  amount: "2.500",
  initiator: { id: 42, first_name: "Ada", last_name: "Admin", username: "ada", email: "ada@example.com" },
  is_sandbox: true,
  operation: "refund",
  order_no: "order-000123",
  pg_code: "sandbox-main",
  pg_response: { result: "SUCCESS", gateway_operation_id: "op_6z3tq2m5r4xkc7v", is_sandbox: true },
  reference_number: "ref_m2ytq6d3kz7x4b5c2n6p3r7s4t",
  result: "success",
  session_id: "sess_q4rt6ypl2m7c3k5x9d2w6f4b1h",
  signature: "9f2b6c1d4e8a7f3b2c6d1e9a8f7b3c2d6e1a9f8b7c3d2e6a1f9b8c7d3e2a6f1b",
  source: "input",
  success: true,
  timestamp_utc: "2026-11-21 10:00:00",
  txn: {
    amount: "2.500",
    currency_code: "KWD",
    order_no: "order-000123",
    session_id: "sess_b7c3d2e6a1f9b8c7d3e2a6f1b9",
    state: "refunded",
  },
});

async function rawHttp(receiver: BenchReceiver): Promise<number> {
  const agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 30_000 });
  const deadline = performance.now() + RAW_SECONDS * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: RAW_IN_FLIGHT }, async (_, lane) => {
      let i = 0;
      while (performance.now() < deadline) {
        const r = await request(`${receiver.url}/raw`, {
          method: "POST",
          dispatcher: agent,
          body: BODY,
          headers: { "content-type": "application/json", "x-bench-id": `raw-${lane}-${i++}` },
        });
        await r.body.dump();
        done += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  await receiver.drain();
  return Math.round(done / seconds);
}

/** Commits `count` messages (each for its own parent) while no worker runs. */
async function prefill(db: Db, merchantId: string, count: number, url: string): Promise<void> {
  await db.tx(async (q) => {
    await q.query(
      `insert into webhook_messages (id, merchant_id, kind, event_type, parent_session_id, body)
       select 'msg_bench_' || g, $1, 'operation', 'operation', 'sess_bench_' || g, $2 from generate_series(1, $3) g`,
      [merchantId, BODY, count],
    );
    await q.query(
      `insert into webhook_deliveries (id, message_id, merchant_id, parent_session_id, url, status, timeout_seconds, retry_schedule_seconds, event_type, sequence)
       select 'dlv_bench_' || g, 'msg_bench_' || g, $1, 'sess_bench_' || g, $2, 'pending', 15, '{5}', 'operation', 1
         from generate_series(1, $3) g`,
      [merchantId, `${url}/drain`, count],
    );
  });
}

async function collect(receiver: BenchReceiver, count: number, into: Map<string, number>): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (into.size < count && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    for (const [id, at] of await receiver.drain()) into.set(id, at);
  }
  if (into.size < count) console.error(`  only ${into.size} of ${count} deliveries arrived in time`);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Commits OFFERED_PER_SECOND messages a second, each in its own transaction, from this process. */
function produceHere(db: Db, merchantId: string, url: string, signal: OutboxSignal) {
  return produce(db, signal, {
    merchantId,
    url,
    body: BODY,
    perSecond: OFFERED_PER_SECOND,
    seconds: OFFERED_SECONDS,
    parentPrefix: "sess_one_",
  });
}

/**
 * The same load from a producer process of its own, as API processes beside `SVC_ROLE=worker`
 * processes: its commits wake the worker through LISTEN/NOTIFY only.
 */
async function produceElsewhere(databaseUrl: string, merchantId: string, url: string) {
  const producer = fork(path.join(here, "support", "producer-process.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const report = new Promise<{ commits: [string, number][]; offeredSeconds: number }>((resolve, reject) => {
    producer.once("message", (m) => resolve(m as { commits: [string, number][]; offeredSeconds: number }));
    producer.once("exit", (code) => reject(new Error(`producer exited with ${code} before reporting`)));
  });
  producer.send({
    databaseUrl,
    merchantId,
    url,
    body: BODY,
    perSecond: OFFERED_PER_SECOND,
    seconds: OFFERED_SECONDS,
  });
  return report;
}

/** Commit → receipt latencies of what a producer committed. */
async function latencies(
  receiver: BenchReceiver,
  { commits, offeredSeconds }: { commits: [string, number][]; offeredSeconds: number },
) {
  const receipts = new Map<string, number>();
  await collect(receiver, commits.length, receipts);
  const sorted = commits
    .map(([id, at]) => (receipts.has(id) ? receipts.get(id)! - at : Number.NaN))
    .filter((x) => !Number.isNaN(x))
    .sort((a, b) => a - b);
  return {
    p50: round1(percentile(sorted, 50)),
    p99: round1(percentile(sorted, 99)),
    n: sorted.length,
    committedPerSecond: Math.round(commits.length / offeredSeconds),
  };
}

export default async function deliveryBench(): Promise<BenchResult[]> {
  const receiver = await startBenchReceiver();
  const results: BenchResult[] = [];
  try {
    // The ceiling is measured again right before each store's run, so each ratio compares
    // figures taken under the same load of the (shared) machine; the best one is reported.
    let best = 0;
    for (const store of await benchStores()) {
      const ceiling = await rawHttp(receiver);
      best = Math.max(best, ceiling);
      console.error(`  raw_http ${ceiling} req/s`);
      const db = await store.open();
      const workerDb = await store.reopen(db);
      const merchantId = await seedOutboxMerchant(db, "mer_bench", SECRET);
      const count = DRAIN_MESSAGES[store.kind];
      await prefill(db, merchantId, count, receiver.url);
      await receiver.drain();
      const signal = new OutboxSignal();
      const worker = new DeliveryWorker(workerDb, {
        allowPrivate: true,
        metrics: createMetrics(),
        signal,
        onError: (e) => console.error("  worker:", e),
      });
      const started = wallMs();
      await worker.start();
      const receipts = new Map<string, number>();
      await collect(receiver, count, receipts);
      const last = Math.max(...receipts.values());
      const rate = Math.round((receipts.size / (last - started)) * 1000);
      await worker.idle();
      const [row] = await db.query<{ n: number }>(
        "select count(*)::int8 as n from webhook_deliveries where status = 'succeeded'",
      );
      console.error(`  ${store.kind}: ${rate} msg/s draining ${count} (${row?.n} recorded succeeded)`);
      results.push({
        name: `delivery.${store.kind}.msgs_per_s`,
        value: rate,
        unit: "msg/s",
        vs: { name: "raw_http.reqs_per_s", value: ceiling },
        ...(store.kind === "postgres" ? { target: "≥ 5000" } : {}),
      });
      if (store.kind === "postgres") {
        // SVC_ROLE=all (the default): producer and worker in one process, woken in-process.
        const all = await latencies(
          receiver,
          await produceHere(db, merchantId, `${receiver.url}/load`, signal),
        );
        // SVC_ROLE=api + SVC_ROLE=worker: the producer in its own process, the worker woken by NOTIFY.
        const split = await latencies(
          receiver,
          await produceElsewhere(store.url(db)!, merchantId, `${receiver.url}/load`),
        );
        for (const [label, l] of [
          ["one process", all],
          ["producer process + NOTIFY", split],
        ] as const)
          console.error(
            `  postgres at ${OFFERED_PER_SECOND}/s, ${label} (${l.committedPerSecond}/s committed): p50 ${l.p50} ms, p99 ${l.p99} ms (${l.n})`,
          );
        results.push(
          { name: "delivery.postgres.p50_ms_at_1000", value: all.p50, unit: "ms" },
          { name: "delivery.postgres.p99_ms_at_1000", value: all.p99, unit: "ms", target: "≤ 50" },
          { name: "delivery.postgres.p50_ms_at_1000_split", value: split.p50, unit: "ms" },
          { name: "delivery.postgres.p99_ms_at_1000_split", value: split.p99, unit: "ms", target: "≤ 50" },
        );
      }
      await worker.stop();
      if (workerDb !== db) await workerDb.close();
      await db.close();
      store.stop();
    }
    results.push({ name: "raw_http.reqs_per_s", value: best, unit: "req/s" });
  } finally {
    receiver.stop();
  }
  return results;
}
