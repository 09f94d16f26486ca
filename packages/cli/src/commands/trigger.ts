/**
 * `svc trigger <event>`: creates real sandbox objects through the service's own API (and, for a
 * gateway-relayed operation, the sandbox gateway's dashboard) so the service sends the event as
 * it would in production. Nothing is faked: each trigger is a checkout transaction paid with the
 * sandbox's test values, then the operation that produces the event.
 */
import { type Api, ApiError } from "../lib/api.js";
import type { Connection, PgCodeName } from "../lib/connection.js";
import { UsageError } from "../lib/connection.js";
import { gatewayOperate } from "./gateway.js";

export interface Trigger {
  name: string;
  description: string;
  /** The event types the merchant's endpoints receive, in order (an operation webhook's result in brackets). */
  produces: string[];
  run(ctx: TriggerContext): Promise<TriggerResult>;
}

export interface TriggerResult {
  /** The checkout transaction the trigger created (absent for webhook.test). */
  session_id?: string | undefined;
  /** The test message's id (webhook.test). */
  message_id?: string | undefined;
  /** The operation's reference number, when the trigger performed one. */
  reference_number?: string | undefined;
}

interface TriggerContext {
  api: Api;
  connection: Connection;
  pgCode(name: PgCodeName): string;
}

const AMOUNT = "10.500";
/** The sandbox declines (real time) or rejects (queued) an operation whose minor units end in 13. */
const REJECTED_AMOUNT = "1.013";

async function createTransaction(ctx: TriggerContext, gateway: PgCodeName): Promise<string> {
  const created = await ctx.api.request<{ session_id: string }>("POST", "/v1/checkout", {
    body: {
      type: "e_commerce",
      pg_codes: [ctx.pgCode(gateway)],
      amount: AMOUNT,
      currency_code: "KWD",
      order_no: `svc-trigger-${Date.now()}`,
      customer_first_name: "Svc",
      customer_last_name: "Trigger",
    },
  });
  return created.session_id;
}

/** Pays with the sandbox's wallet A: any token is approved, "decline" is declined. */
async function payWithWallet(
  ctx: TriggerContext,
  gateway: PgCodeName,
  token = "tok-svc-trigger",
): Promise<string> {
  const sessionId = await createTransaction(ctx, gateway);
  await ctx.api.request("POST", `/v1/checkout/${sessionId}/payments`, {
    key: ctx.connection.publicKey ?? ctx.connection.apiKey,
    body: { form_of_payment: "wallet_a_pay", pg_code: ctx.pgCode(gateway), payment_token: token },
  });
  return sessionId;
}

/** Starts a redirect payment on the queued sandbox and, unless `action` is absent, presses it on the gateway's page. */
async function payByRedirect(
  ctx: TriggerContext,
  action?: "approve" | "decline" | "cancel",
): Promise<string> {
  const sessionId = await createTransaction(ctx, "sandbox_queued");
  const started = await ctx.api.request<{ redirect_url: string }>(
    "POST",
    `/v1/checkout/${sessionId}/payments`,
    {
      key: ctx.connection.publicKey ?? ctx.connection.apiKey,
      body: { form_of_payment: "redirect", pg_code: ctx.pgCode("sandbox_queued") },
    },
  );
  if (!action) return sessionId;
  const submitted = await fetch(started.redirect_url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `action=${action}`,
    redirect: "manual",
  });
  const back = submitted.headers.get("location");
  if (!back)
    throw new Error(
      `the sandbox gateway's page answered ${submitted.status} without sending the customer back`,
    );
  // The customer's browser returning to svc: svc reads the result from the gateway.
  await (await fetch(back, { redirect: "manual" })).text();
  return sessionId;
}

async function operate(
  ctx: TriggerContext,
  sessionId: string,
  operation: "refund" | "capture" | "void",
  amount: string,
): Promise<TriggerResult> {
  const done = await ctx.api.request<{ reference_number?: string }>("POST", "/v1/operations", {
    body: { operation, session_id: sessionId, amount },
    headers: { "idempotency-key": `svc-trigger-${sessionId}-${operation}-${amount}` },
  });
  return { session_id: sessionId, reference_number: done.reference_number };
}

export const TRIGGERS: Trigger[] = [
  {
    name: "payment.paid",
    description: "a purchase paid with the sandbox wallet",
    produces: ["payment.paid"],
    run: async (ctx) => ({ session_id: await payWithWallet(ctx, "sandbox") }),
  },
  {
    name: "payment.authorized",
    description: "an authorization on the sandbox (authorise) gateway",
    produces: ["payment.authorized"],
    run: async (ctx) => ({ session_id: await payWithWallet(ctx, "sandbox_authorize") }),
  },
  {
    name: "payment.failed",
    description: 'a wallet payment the sandbox declines (token "decline")',
    produces: ["payment.failed"],
    run: async (ctx) => ({ session_id: await payWithWallet(ctx, "sandbox", "decline") }),
  },
  {
    name: "payment.pending",
    description: "a redirect payment started and left on the gateway's page",
    produces: ["payment.pending"],
    run: async (ctx) => ({ session_id: await payByRedirect(ctx) }),
  },
  {
    name: "payment.canceled",
    description: "a redirect payment the customer cancels on the gateway's page",
    produces: ["payment.pending", "payment.canceled"],
    run: async (ctx) => ({ session_id: await payByRedirect(ctx, "cancel") }),
  },
  {
    name: "operation.refund",
    description: "a paid payment refunded 1.000 KWD through the API (result success)",
    produces: ["payment.paid", "operation (success)"],
    run: async (ctx) => operate(ctx, await payWithWallet(ctx, "sandbox"), "refund", "1.000"),
  },
  {
    name: "operation.refund.queued",
    description: "a refund the queued sandbox accepts later (result queued, then success)",
    produces: ["payment.pending", "payment.paid", "operation (queued)", "operation (success)"],
    run: async (ctx) => operate(ctx, await payByRedirect(ctx, "approve"), "refund", "1.000"),
  },
  {
    name: "operation.refund.rejected",
    description: "a refund the queued sandbox rejects later (result queued, then rejected)",
    produces: ["payment.pending", "payment.paid", "operation (queued)", "operation (rejected)"],
    run: async (ctx) => operate(ctx, await payByRedirect(ctx, "approve"), "refund", REJECTED_AMOUNT),
  },
  {
    name: "operation.capture",
    description: "an authorization captured in part (2.000 KWD)",
    produces: ["payment.authorized", "operation (success)"],
    run: async (ctx) => operate(ctx, await payWithWallet(ctx, "sandbox_authorize"), "capture", "2.000"),
  },
  {
    name: "operation.void",
    description: "an authorization voided in full",
    produces: ["payment.authorized", "operation (success)"],
    run: async (ctx) => operate(ctx, await payWithWallet(ctx, "sandbox_authorize"), "void", AMOUNT),
  },
  {
    name: "operation.gateway_refund",
    description: 'a refund done on the sandbox gateway\'s own dashboard, relayed by svc (source "pg")',
    produces: ["payment.paid", "operation (success, source pg)"],
    run: async (ctx) => {
      const sessionId = await payWithWallet(ctx, "sandbox");
      await gatewayOperate(ctx.connection.gatewayUrl, "refund", sessionId, "1.000");
      return { session_id: sessionId };
    },
  },
  {
    name: "webhook.test",
    description: "a signed test message through the real delivery path",
    produces: ["webhook.test"],
    run: async (ctx) => {
      const sent = await ctx.api.request<{ message_id: string | null }>("POST", "/v1/webhooks/test");
      return { message_id: sent.message_id ?? undefined };
    },
  },
];

export async function trigger(
  api: Api,
  connection: Connection,
  name: string,
): Promise<TriggerResult & { trigger: Trigger }> {
  const found = TRIGGERS.find((t) => t.name === name);
  if (!found)
    throw new UsageError(
      `no trigger "${name}"; \`svc trigger --list\` lists them: ${TRIGGERS.map((t) => t.name).join(", ")}`,
    );
  const ctx: TriggerContext = {
    api,
    connection,
    pgCode(gateway) {
      const code = connection.pgCodes?.[gateway];
      if (!code)
        throw new UsageError(
          `the trigger needs the merchant's "${gateway}" gateway code: run it beside \`svc dev\`, or pass --pg-codes ${gateway}=<pg_code>`,
        );
      return code;
    },
  };
  try {
    return { ...(await found.run(ctx)), trigger: found };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      throw new UsageError(`the service refused the key (${error.message}); check --api-key`);
    throw error;
  }
}
