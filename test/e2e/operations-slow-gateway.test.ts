/**
 * The crash test's second half, on PostgreSQL: the gateway does every refund but answers after
 * svc has given up on it (SVC_GATEWAY_TIMEOUT_MS), so every first answer is 504
 * `gateway_outcome_unknown`; `svc serve` is SIGKILLed in the middle of the burst and restarted;
 * every key is then retried as a client would. Each key ends with exactly one refund — in svc, in
 * the gateway's ledger, and in its webhook — never two: an unknown outcome never frees a key for
 * a second gateway call, and the retry (or the sweep) recovers the first by its reference.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../packages/service/src/db/client.js";
import {
  type SandboxGateway,
  startSandboxGateway,
} from "../../packages/service/src/gateways/sandbox/server.js";
import { freePort } from "../support/free-port.js";
import { api, apiKey, createMerchant } from "../support/merchant.js";
import { paidParent, sandboxLedger } from "../support/payments.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { pollUntil, type ServeProcess, startServe } from "../support/serve.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { freshPostgresUrl } from "../support/stores.js";
import { configureWebhooks } from "../support/webhooks.js";

const POSTGRES = Boolean(process.env.SVC_TEST_DATABASE_URL);
const PARENTS = 4;
/** 100 refunds of 0.010 per parent fit in 1.000 (KWD, 3 decimals): every key gets its refund. */
const PARENT_AMOUNT = "1.000";
const REFUND_AMOUNT = "0.010";
const REQUESTS = 320;
const IN_FLIGHT = 40;
const KILL_AFTER = 0.5;
const GATEWAY_TIMEOUT_MS = 300;
/** The sandbox books each refund at once and answers this long after: always past svc's timeout. */
const ANSWER_DELAY_MS = 1_200;

interface Answer {
  status?: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON, read field by field
  json?: any;
  error?: string;
}

describe.skipIf(!POSTGRES)("a gateway that answers after svc's timeout, and a SIGKILL (PostgreSQL)", () => {
  let gateway: SandboxGateway | undefined;
  let receiver: Receiver | undefined;
  let db: Db | undefined;
  const services: ServeProcess[] = [];
  afterAll(async () => {
    for (const s of services) await s.stop();
    await db?.close();
    await receiver?.close();
    await gateway?.close();
  });

  it("every key ends with exactly one refund in svc and in the gateway's ledger, with its webhook", async () => {
    gateway = await startSandboxGateway({
      port: 0,
      notificationSecret: GATEWAY_SECRET,
      operationAnswerDelayMs: ANSWER_DELAY_MS,
    });
    receiver = await startReceiver();
    const databaseUrl = await freshPostgresUrl();
    const port = await freePort();
    const service = { url: `http://127.0.0.1:${port}` };
    const env = {
      SVC_DATABASE_URL: databaseUrl,
      SVC_PORT: String(port),
      SVC_HOST: "127.0.0.1",
      SVC_PUBLIC_URL: service.url,
      SVC_GATEWAY_URL: gateway.url,
      SVC_GATEWAY_SECRET: GATEWAY_SECRET,
      SVC_GATEWAY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS),
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_WEBHOOK_ALLOW_PRIVATE: "true",
      SVC_LOG_LEVEL: "warn",
      // One key from one address at test speed: far past a client's limits, which are tested apart.
      SVC_RATE_LIMIT_PER_ADDRESS: "0",
      SVC_RATE_LIMIT_PER_CREDENTIAL: "0",
      SVC_RESERVATION_TIMEOUT_SECONDS: "2",
      SVC_IDEMPOTENCY_LEASE_SECONDS: "2",
    };
    const first = await startServe(env);
    services.push(first);
    const m = await createMerchant(service);
    await configureWebhooks(service, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
    const parents: string[] = [];
    for (let i = 0; i < PARENTS; i++)
      parents.push((await paidParent(service, m, "sandbox", { amount: PARENT_AMOUNT })).session_id);

    const refund = async (index: number): Promise<Answer> => {
      try {
        const r = await api(service, "POST", "/v1/operations", {
          auth: apiKey(m.privateKey),
          body: { operation: "refund", session_id: parents[index % PARENTS], amount: REFUND_AMOUNT },
          headers: { "idempotency-key": `slow-refund-${index}` },
        });
        return { status: r.status, json: r.json };
      } catch (error) {
        return { error: String((error as Error).cause ?? error) };
      }
    };

    // The burst: every first answer is a 504 (or cut by the kill).
    const firstAnswers = new Map<number, Answer>();
    let next = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (!killed && next < REQUESTS) {
          const index = next++;
          firstAnswers.set(index, await refund(index));
          if (!killed && firstAnswers.size >= REQUESTS * KILL_AFTER) {
            killed = true;
            first.kill("SIGKILL");
          }
        }
      }),
    );
    await first.exited;
    const answered = [...firstAnswers.values()].filter((a) => a.status !== undefined);
    expect(answered.length).toBeGreaterThan(0);
    for (const a of answered) expect(a.json?.code, JSON.stringify(a.json)).toBe("gateway_outcome_unknown");

    const second = await startServe(env);
    services.push(second);
    // Every key, sent before the kill or not yet sent, until it has its final answer.
    const finals = new Map<number, Answer>();
    const plan = Array.from({ length: REQUESTS }, (_, i) => i);
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let index = plan.shift(); index !== undefined; index = plan.shift()) {
          let answer = await refund(index);
          // 504 (this attempt's own call timed out: still unknown) and 409 (the key is held) are retried.
          for (let tries = 0; tries < 60 && (answer.status === 504 || answer.status === 409); tries++) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            answer = await refund(index);
          }
          finals.set(index, answer);
        }
      }),
    );
    const notRefunded = [...finals.entries()].filter(([, a]) => a.status !== 200);
    expect(notRefunded.map(([i, a]) => `${i}: ${a.status} ${JSON.stringify(a.json ?? a.error)}`)).toEqual([]);

    db = await openPostgres(databaseUrl, 2);
    const children = await db.query<{
      session_id: string;
      parent_session_id: string;
      reference_number: string;
    }>("select session_id, parent_session_id, reference_number from operations where merchant_id = $1", [
      m.id,
    ]);
    // One child per key, each named by exactly one key's answer.
    const named = [...finals.values()].map((a) => a.json.txn.session_id as string);
    expect(new Set(named).size).toBe(REQUESTS);
    expect(named.sort()).toEqual(children.map((c) => c.session_id).sort());
    // The gateway did exactly those refunds, one per reference.
    for (const parent of parents) {
      const done = (await sandboxLedger({ gatewayUrl: gateway.url }, parent))
        .filter((op) => op.status === "success")
        .map((op) => op.reference_number)
        .sort();
      expect(done).toEqual(
        children
          .filter((c) => c.parent_session_id === parent)
          .map((c) => c.reference_number)
          .sort(),
      );
    }
    // Each refund's webhook arrives, once per child.
    await pollUntil(
      "a webhook for every refund",
      async () =>
        new Set(receiver!.requests.map((r) => r.json?.txn?.session_id)).size >= REQUESTS ? true : undefined,
      60_000,
      250,
    );
    const received = new Set(
      receiver.requests.filter((r) => r.path === "/ops").map((r) => r.json?.txn?.session_id),
    );
    expect([...received].sort()).toEqual(children.map((c) => c.session_id).sort());
  }, 240_000);
});
