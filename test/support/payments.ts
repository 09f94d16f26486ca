/** Paid and authorized parents for operation tests, through the real checkout flows. */
import { api, apiKey, createTransaction, type ServiceUrl, type TestMerchant } from "./merchant.js";

export type ParentKind = "sandbox" | "authorize" | "queued";

/** The buttons of the sandbox's redirect page. */
export type RedirectAction = "approve" | "decline" | "cancel";

/**
 * A parent paid (sandbox, queued) or authorized (authorize). sandbox and authorize pay with
 * wallet A at once; queued (sandbox-queued) goes through the gateway's redirect page, approved.
 * `overrides.pg_codes` may name another gateway setting of the same flow (e.g. a sandbox-queued
 * one in authorize mode): the parent is then expected `authorized` if the transaction is an
 * authorization, `paid` otherwise.
 */
export async function paidParent(
  stack: ServiceUrl,
  m: TestMerchant,
  kind: ParentKind = "sandbox",
  overrides: Record<string, unknown> = {},
) {
  const pgCode = (overrides.pg_codes as string[] | undefined)?.[0] ?? m.pg[kind];
  const created = await createTransaction(stack, m, { pg_codes: [pgCode], ...overrides });
  if (created.status !== 201) throw new Error(`checkout: ${created.status} ${created.text}`);
  const tx = created.json;
  if (kind === "queued") {
    await payByRedirect(stack, m, tx.session_id, pgCode, "approve");
  } else {
    const r = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "wallet_a_pay", pg_code: pgCode, payment_token: "tok-test" },
    });
    if (r.status !== 200) throw new Error(`wallet_a: ${r.status} ${r.text}`);
  }
  const status = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
  const expected = tx.operation === "authorize" ? "authorized" : "paid";
  if (status.json.state !== expected) throw new Error(`parent is ${status.json.state}, expected ${expected}`);
  return status.json as {
    session_id: string;
    order_no: string | null;
    amount: string;
    currency_code: string;
  };
}

/** A paid parent refunded once per amount, in that order; returns its session id. */
export async function refundedParent(stack: ServiceUrl, m: TestMerchant, amounts: string[]): Promise<string> {
  const parent = await paidParent(stack, m);
  for (const amount of amounts) {
    const r = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount },
    });
    if (r.status !== 200) throw new Error(`refund: ${r.status} ${r.text}`);
  }
  return parent.session_id;
}

/**
 * Pays the transaction `sessionId` through `pgCode`'s redirect page, pressing `action` there,
 * and follows the browser's way back to svc.
 */
export async function payByRedirect(
  stack: ServiceUrl,
  m: TestMerchant,
  sessionId: string,
  pgCode: string,
  action: RedirectAction,
): Promise<void> {
  const r = await api(stack, "POST", `/v1/checkout/${sessionId}/payments`, {
    auth: apiKey(m.publicKey),
    body: { form_of_payment: "redirect", pg_code: pgCode },
  });
  if (r.status !== 200) throw new Error(`redirect: ${r.status} ${r.text}`);
  const submitted = await fetch(r.json.redirect_url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `action=${action}`,
    redirect: "manual",
  });
  await (await fetch(submitted.headers.get("location")!, { redirect: "manual" })).text();
}

/** One operation as the sandbox gateway recorded it (its own dashboard's listing). */
export interface SandboxLedgerOperation {
  gateway_operation_id: string;
  operation: string;
  amount: string;
  /** svc's reference_number; absent for an operation done on the gateway's own dashboard. */
  reference_number?: string;
  source: "api" | "dashboard";
  status: string;
}

/** One payment as the sandbox gateway recorded it: its own totals and operations. */
export interface SandboxLedgerPayment {
  session_id: string;
  /** What the gateway refunded in all, e.g. "1.250". */
  refunded: string;
  operations: SandboxLedgerOperation[];
}

/** Every payment the sandbox gateway recorded (its own dashboard's listing). */
export async function sandboxPayments(stack: { gatewayUrl: string }): Promise<SandboxLedgerPayment[]> {
  const r = await fetch(`${stack.gatewayUrl}/dashboard/payments`);
  if (r.status !== 200) throw new Error(`sandbox listing: ${r.status}`);
  return ((await r.json()) as { payments: SandboxLedgerPayment[] }).payments;
}

/** The operations the sandbox gateway itself recorded on the payment of svc's `sessionId`. */
export async function sandboxLedger(
  stack: { gatewayUrl: string },
  sessionId: string,
): Promise<SandboxLedgerOperation[]> {
  const payments = await sandboxPayments(stack);
  const payment = payments.find((p) => p.session_id === sessionId);
  if (!payment) throw new Error(`the sandbox has no payment for ${sessionId}`);
  return payment.operations;
}
