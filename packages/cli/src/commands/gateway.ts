/**
 * `svc gateway …`: drives the sandbox gateway's own dashboard API, the way a merchant's staff
 * would act on a real gateway's dashboard. The gateway then notifies svc, which relays the
 * operation to the merchant as an operation webhook with `source: "pg"`.
 *
 *   svc gateway payments                         list the gateway's payments
 *   svc gateway refund  <session_id|pg_ref> <amount>
 *   svc gateway capture <session_id|pg_ref> <amount>
 *   svc gateway void    <session_id|pg_ref> <amount>
 */
const OPERATIONS = ["refund", "capture", "void"] as const;
export type GatewayOperation = (typeof OPERATIONS)[number];

export const GATEWAY_USAGE = `usage: svc gateway payments
       svc gateway <refund|capture|void> <session_id|pg_reference> <amount>

Talks to the sandbox gateway at SVC_GATEWAY_URL (default http://127.0.0.1:$SVC_GATEWAY_PORT, port 8081).
`;

interface GatewayPayment {
  pg_reference: string;
  session_id: string;
}

export function gatewayUrl(env: Record<string, string | undefined>): string {
  return (env.SVC_GATEWAY_URL || `http://127.0.0.1:${env.SVC_GATEWAY_PORT || "8081"}`).replace(/\/$/, "");
}

async function call(url: string, init?: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new Error(`cannot reach the sandbox gateway at ${url}: is \`npm start\` running?`);
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(
      `the gateway refused (${response.status}): ${String(body.message ?? body.error ?? JSON.stringify(body))}`,
    );
  return body;
}

export async function gatewayCommand(
  args: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
): Promise<number> {
  const base = gatewayUrl(env);
  const [verb, target, amount] = args;
  if (verb === "payments") {
    out(JSON.stringify(await call(`${base}/dashboard/payments`), null, 2));
    return 0;
  }
  if (!OPERATIONS.includes(verb as (typeof OPERATIONS)[number]) || !target || !amount) {
    out(GATEWAY_USAGE);
    return 2;
  }
  const result = await gatewayOperate(base, verb as GatewayOperation, target, amount);
  out(JSON.stringify(result, null, 2));
  return 0;
}

/** Performs an operation on the sandbox gateway's own dashboard, on the payment of a session id or pg reference. */
export async function gatewayOperate(
  base: string,
  operation: GatewayOperation,
  target: string,
  amount: string,
): Promise<unknown> {
  let pgReference = target;
  if (target.startsWith("sess_")) {
    const { payments } = (await call(`${base}/dashboard/payments`)) as { payments: GatewayPayment[] };
    const found = payments.find((p) => p.session_id === target);
    if (!found) throw new Error(`the gateway has no payment for session ${target}`);
    pgReference = found.pg_reference;
  }
  return call(`${base}/dashboard/operations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ pg_reference: pgReference, operation, amount }),
  });
}
