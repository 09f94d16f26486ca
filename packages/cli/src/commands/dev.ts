/**
 * `svc dev` (what `npm start` runs): the sandbox gateway, KNET and Stripe stand-ins and the service on
 * embedded PGlite under SVC_DATA_DIR (default .svc), a demo merchant seeded idempotently, its
 * credentials written to <data dir>/dev-credentials.json and printed with a curl that creates a
 * transaction. Gateway credentials are sealed with a key kept in <data dir>/secrets.key (made on
 * the first start) unless SVC_SECRETS_KEY is set. OpenTelemetry tracing starts first when the
 * OTEL_* variables ask for it, so the service's modules are imported after it.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { startTracing } from "@svc/service/telemetry";
import { databaseWaitLines } from "./serve.js";

const SECRETS_KEY_FILE = "secrets.key";

/** svc dev's own secrets key: the one in the data dir, made (0600) on the first start. */
async function devSecretsKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SECRETS_KEY_FILE);
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const key = randomBytes(32).toString("base64");
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" }).catch(async () => undefined);
    return (await readFile(file, "utf8")).trim();
  }
}

export async function devCommand(env: Record<string, string | undefined>): Promise<void> {
  const tracing = await startTracing(env);
  const { loadConfig, redactConfig, startService } = await import("@svc/service");
  const { newDemoKnetTerminal, newDemoStripeAccount, readCredentials, seedDemoMerchant, writeCredentials } =
    await import("@svc/service/dev-seed");
  const { startKnetStandIn } = await import("@svc/service/knet-standin");
  const { startStripeStandIn } = await import("@svc/service/stripe-standin");
  const { startSandboxGateway } = await import("@svc/service/sandbox");
  const base = loadConfig(env);
  await mkdir(base.dataDir, { recursive: true });
  const previous = await readCredentials(base.dataDir);
  const adminToken = base.adminToken || previous?.admin_token || `adm_${randomBytes(24).toString("hex")}`;
  const gatewaySecret =
    base.gatewayNotificationSecret ||
    previous?.gateway_notification_secret ||
    randomBytes(32).toString("hex");
  const config = loadConfig(env, {
    adminToken,
    secretsKey: base.secretsKey || (await devSecretsKey(base.dataDir)),
    gatewayNotificationSecret: gatewaySecret,
    // svc dev delivers webhooks to receivers on this machine; production refuses private addresses.
    webhookAllowPrivate: env.SVC_WEBHOOK_ALLOW_PRIVATE !== "false",
    // The example shop reads the demo credentials: local development only, never `svc serve`.
    exampleShop: true,
    // Loose enough for local work (a test suite against svc dev, a script looping): 10× unless set.
    rateLimits: {
      ...base.rateLimits,
      perAddress: env.SVC_RATE_LIMIT_PER_ADDRESS
        ? base.rateLimits.perAddress
        : base.rateLimits.perAddress * 10,
      perCredential: env.SVC_RATE_LIMIT_PER_CREDENTIAL
        ? base.rateLimits.perCredential
        : base.rateLimits.perCredential * 10,
      authFailures: env.SVC_RATE_LIMIT_AUTH_FAILURES
        ? base.rateLimits.authFailures
        : base.rateLimits.authFailures * 10,
    },
  });

  const gateway = await startSandboxGateway({
    host: "127.0.0.1",
    port: config.gatewayPort,
    notificationSecret: gatewaySecret,
  });
  // KNET's raw integration, spoken by a stand-in on this machine, so the KNET path can be tried end
  // to end: its pages at SVC_KNET_PORT, its demo terminal the demo merchant's `knet` setting.
  const knetTerminal = previous?.knet_terminal ?? newDemoKnetTerminal();
  const knet = await startKnetStandIn({
    host: "127.0.0.1",
    port: Number(env.SVC_KNET_PORT || config.gatewayPort + 1),
    terminals: [knetTerminal],
  });
  // Stripe's API, spoken by a stand-in on this machine (cards on svc's card page, 3-D Secure,
  // refunds, its events to svc): at SVC_STRIPE_PORT, its demo account the `stripe` setting's.
  const stripeAccount = previous?.stripe_account ?? newDemoStripeAccount();
  const stripe = await startStripeStandIn({
    host: "127.0.0.1",
    port: Number(env.SVC_STRIPE_PORT || config.gatewayPort + 2),
    accounts: [stripeAccount],
  });
  const service = await startService(config, {
    onDatabaseWait: databaseWaitLines((line) => process.stdout.write(`${line}\n`)),
  });
  const credentials = await seedDemoMerchant(service.app, config, previous, {
    knet: { url: knet.url, terminal: knetTerminal },
    stripe: { url: stripe.url, account: stripeAccount },
  });
  // Its events (a refund made on "Stripe's dashboard", a refund's late result) go to svc.
  stripe.setWebhookUrl(
    stripeAccount.secretKey,
    `${config.publicUrl}/v1/gateways/${credentials.pg_codes.stripe}/notifications`,
  );
  const file = await writeCredentials(config.dataDir, credentials);

  service.app.log.debug({ config: redactConfig(config) }, "configuration");
  const curl = `curl -s ${config.publicUrl}/v1/checkout \\
  -H 'Authorization: Api-Key ${credentials.private_key}' \\
  -H 'Content-Type: application/json' \\
  -d '{"type":"e_commerce","pg_codes":["${credentials.pg_codes.sandbox}"],"amount":"10.500","currency_code":"KWD","order_no":"demo-'$(date +%s)'"}'`;
  process.stdout.write(`
svc is running
  service          ${config.publicUrl}
  API docs         ${config.publicUrl}/docs
  example shop     ${config.publicUrl}/example/   (pay with the checkout SDK in a browser)
  dashboard        ${config.publicUrl}/dashboard   (user ${credentials.dashboard.username}, password in the credentials file)
  sandbox gateway  ${gateway.url}
  KNET stand-in    ${knet.url}   (pg_code ${credentials.pg_codes.knet}: bank "KNET1", expiry 09/2021 pays, another expiry declines)
  Stripe stand-in  ${stripe.url}   (pg_code ${credentials.pg_codes.stripe}, KWD and USD: card 4242 4242 4242 4242 pays, 4000 0027 6000 3184 asks for 3-D Secure, 4000 0000 0000 0002 declines)
  store            ${config.databaseUrl ? "PostgreSQL" : `PGlite in ${config.dataDir}`}
  credentials      ${file}

  merchant_id      ${credentials.merchant_id}
  private key      ${credentials.private_key}
  public key       ${credentials.public_key}
  pg_codes         ${Object.values(credentials.pg_codes).join(", ")}

Create a transaction:
${curl}

Then open its checkout_url in a browser and pay with card 4242 4242 4242 4242, any future expiry, any CVC.
`);

  const stop = async (signal: string) => {
    process.stdout.write(`\n${signal}: stopping…\n`);
    await service.close();
    await gateway.close();
    await knet.close();
    await stripe.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}
