/**
 * No gateway credential in any log line: `svc serve` in its own process, logging at debug, while
 * KNET and Stripe settings are created (one refused), changed, paid through and refunded against
 * their stand-ins, and a forged event is refused. Everything the process printed is searched for
 * every credential.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startKnetStandIn } from "../../packages/service/src/gateways/knet/standin/index.js";
import { startStripeStandIn } from "../../packages/service/src/gateways/stripe/standin/index.js";
import { freePort } from "../support/free-port.js";
import { payOnKnet } from "../support/knet.js";
import { api, apiKey, type ServiceUrl } from "../support/merchant.js";
import { startServe } from "../support/serve.js";

const ADMIN = "adm_credentials_in_logs_0123456789";
const KNET = { tranportalId: "lg990401", password: "Lg-pw-7781x", resourceKey: "Lq7w2Er9Ty4Ui0Op" };
const STRIPE = {
  secretKey: "sk_test_logsCheck88f1e2d3c4b5a6",
  webhookSecret: "whsec_bG9ncy1jaGVjay1zaWduaW5nLXNlY3JldA",
};
/** What Stripe appends to the return URL after 3-D Secure, which the access log must not keep. */
const CLIENT_SECRET = "pi_logs_secret_Cl13ntS3cr3tLogsCheck";
const SECRETS = [KNET.password, KNET.resourceKey, STRIPE.secretKey, STRIPE.webhookSecret, CLIENT_SECRET];

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-logs-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("svc serve logs no gateway credential while settings are saved, refused, changed and used", async () => {
  const knet = await startKnetStandIn({ terminals: [KNET] });
  const stripe = await startStripeStandIn({ accounts: [STRIPE] });
  const port = await freePort();
  const svc: ServiceUrl = { url: `http://127.0.0.1:${port}` };
  const serve = await startServe({
    SVC_PORT: String(port),
    SVC_PUBLIC_URL: svc.url,
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: ADMIN,
    SVC_SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
    SVC_LOG_LEVEL: "debug",
  });
  try {
    const admin = `Bearer ${ADMIN}`;
    const merchant = (
      await api(svc, "POST", "/v1/admin/merchants", { auth: admin, body: { root_domain: "logs.example" } })
    ).json;
    const gateways = `/v1/admin/merchants/${merchant.id}/gateways`;
    const knetCredentials = {
      tranportal_id: KNET.tranportalId,
      tranportal_password: KNET.password,
      resource_key: KNET.resourceKey,
    };
    // Refused (the key one character short, and the password in a field of its own name): no echo.
    const refused = await api(svc, "POST", gateways, {
      auth: admin,
      body: {
        pg_code: "knet",
        kind: "knet",
        currencies: ["KWD"],
        credentials: { ...knetCredentials, resource_key: KNET.resourceKey.slice(1), [KNET.password]: "x" },
      },
    });
    expect(refused.status).toBe(422);
    for (const body of [
      {
        pg_code: "knet",
        kind: "knet",
        currencies: ["KWD"],
        api_base_url: knet.url,
        credentials: knetCredentials,
      },
      {
        pg_code: "stripe",
        kind: "stripe",
        currencies: ["USD"],
        api_base_url: stripe.url,
        credentials: { secret_key: STRIPE.secretKey, webhook_secret: STRIPE.webhookSecret },
      },
    ])
      expect((await api(svc, "POST", gateways, { auth: admin, body })).status).toBe(201);
    expect(
      (await api(svc, "PATCH", `${gateways}/knet`, { auth: admin, body: { credentials: knetCredentials } }))
        .status,
    ).toBe(200);
    stripe.setWebhookUrl(STRIPE.secretKey, `${svc.url}/v1/gateways/stripe/notifications`);

    const checkout = (pgCode: string, amount: string, currency: string) =>
      api(svc, "POST", "/v1/checkout", {
        auth: apiKey(merchant.private_key),
        body: { type: "e_commerce", pg_codes: [pgCode], amount, currency_code: currency },
      }).then((r) => r.json.session_id as string);
    const refund = (sessionId: string, currency: string) =>
      api(svc, "POST", "/v1/operations", {
        auth: apiKey(merchant.private_key),
        body: {
          session_id: sessionId,
          operation: "refund",
          amount: currency === "KWD" ? "1.000" : "1.00",
          currency_code: currency,
        },
        headers: { "idempotency-key": `logs-${sessionId}` },
      });

    const knetPaid = await checkout("knet", "5.000", "KWD");
    const toKnet = await api(svc, "POST", `/v1/checkout/${knetPaid}/payments`, {
      auth: apiKey(merchant.public_key),
      body: { form_of_payment: "redirect", pg_code: "knet" },
    });
    await payOnKnet(toKnet.json.redirect_url, { expiry: "09/2021" });
    expect((await refund(knetPaid, "KWD")).status).toBe(200);

    const stripePaid = await checkout("stripe", "5.00", "USD");
    const card = await fetch(`${svc.url}/pay/${stripePaid}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        pg_code: "stripe",
        number: "4242424242424242",
        expiry: "12/39",
        cvc: "123",
      }).toString(),
      redirect: "manual",
    });
    expect(card.status).toBe(303);
    expect((await refund(stripePaid, "USD")).status).toBe(200);
    // The customer back from 3-D Secure, as Stripe sends them: the URL is logged, its secret not.
    await fetch(
      `${svc.url}/pay/${stripePaid}/return?payment_intent=pi_logs&payment_intent_client_secret=${CLIENT_SECRET}&redirect_status=succeeded`,
      { redirect: "manual" },
    );
    const forged = await api(svc, "POST", "/v1/gateways/stripe/notifications", {
      body: "{}",
      headers: { "stripe-signature": "t=1,v1=00" },
    });
    expect(forged.status).toBe(401);
    // A setting whose gateway cannot be reached: the errors are logged, the credentials are not.
    await api(svc, "PATCH", `${gateways}/stripe`, {
      auth: admin,
      body: { api_base_url: "http://127.0.0.1:9" },
    });
    await refund(stripePaid, "USD");
  } finally {
    await serve.stop();
    await knet.close();
    await stripe.close();
  }
  const printed = serve.output();
  // It did log: every request, and the gateway that could not be reached.
  expect(printed).toContain('"msg":"incoming request"');
  expect(printed).toContain("/v1/admin/merchants/");
  expect(printed).toContain(
    "payment_intent=pi_logs&payment_intent_client_secret=[redacted]&redirect_status=succeeded",
  );
  for (const secret of SECRETS) expect(printed).not.toContain(secret);
  // The tranportal id is an identifier KNET puts in the customer's URL: at most its hint shows.
}, 120_000);
