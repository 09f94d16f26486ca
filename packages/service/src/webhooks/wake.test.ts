/**
 * A new message wakes the worker at once, not through the fallback poll. The poll is set to
 * 10 minutes here, so only a wake can deliver within the tests' bound: in-process in one service
 * (SVC_ROLE=all; on PGlite that signal is the only path), and LISTEN/NOTIFY alone between an
 * api-role service and a worker-role service with pools and signals of their own (PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { freshPostgresUrl, STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { type Db, openPostgres } from "../db/client.js";
import { migrate } from "../db/migrate.js";

/** Far longer than any wait below: a delivery within the bound was woken, not polled. */
const FALLBACK_POLL_MS = 10 * 60_000;
/** The bound on a delivery's arrival: generous for a loaded machine, far below the poll. */
const ARRIVAL_BOUND_MS = 15_000;

async function refundWithWebhook(service: Stack, m: TestMerchant, receiver: Receiver, worker: Stack) {
  await configureWebhooks(service, m, {
    operations_webhook_url: `${receiver.url}/wake`,
    notify_api_initiated: true,
  });
  const parent = await paidParent(service, m);
  // Nothing in flight: the worker's start-up claim and any wake of the payment are over.
  await worker.service.worker!.idle();
  const r = await api(service, "POST", "/v1/operations", {
    auth: apiKey(m.privateKey),
    body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
  });
  expect(r.status).toBe(200);
  const [delivered] = await receiver.waitFor(1, { path: "/wake", timeoutMs: ARRIVAL_BOUND_MS });
  expect(delivered!.json).toMatchObject({
    session_id: parent.session_id,
    reference_number: r.json.reference_number,
  });
}

describe.each(STORES)("the in-process wake (SVC_ROLE=all) on %s", (store) => {
  let stack: Stack;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store, { config: { webhookPollMs: FALLBACK_POLL_MS } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it("a refund's webhook is delivered without the fallback poll", async () => {
    const m = await createMerchant(stack);
    await refundWithWebhook(stack, m, receiver, stack);
  });
});

describe.skipIf(!STORES.includes("postgres"))("LISTEN/NOTIFY alone (api and worker services apart)", () => {
  let apiDb: Db;
  let workerDb: Db;
  let apiStack: Stack;
  let workerStack: Stack;
  let receiver: Receiver;
  beforeAll(async () => {
    const url = await freshPostgresUrl();
    apiDb = await openPostgres(url, 5);
    workerDb = await openPostgres(url, 5);
    await migrate(apiDb);
    // Each service has its own pool and its own in-process signal: only a NOTIFY crosses over.
    apiStack = await startStack("postgres", { db: apiDb, config: { role: "api" } });
    workerStack = await startStack("postgres", {
      db: workerDb,
      config: { role: "worker", webhookPollMs: FALLBACK_POLL_MS },
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await apiStack?.close();
    await workerStack?.close();
    await apiDb?.close();
    await workerDb?.close();
    await receiver?.close();
  });

  it("a refund made through the api service is delivered by the worker service without the poll", async () => {
    expect(apiStack.service.worker).toBeUndefined();
    const m = await createMerchant(apiStack);
    await refundWithWebhook(apiStack, m, receiver, workerStack);
  });
});
