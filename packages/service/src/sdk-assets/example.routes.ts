/**
 * GET /example/: what a merchant's checkout page does, with the demo merchant of `svc dev`.
 * The server side creates a transaction through the real Checkout API with the private key
 * (as a merchant's backend would), and the page mounts the SDK with the public key.
 */
import type { FastifyInstance } from "fastify";
import type { ServiceConfig } from "../config.js";
import { readCredentials } from "../dev/seed.js";
import { examplePage } from "./example.html.js";

const EXAMPLE_AMOUNT = "10.500";
const EXAMPLE_CURRENCY = "KWD";
const EXAMPLE_CUSTOMER = "example-customer";

export function exampleRoutes(app: FastifyInstance, config: ServiceConfig): void {
  app.get("/example/", { schema: { hide: true } }, async (request, reply) => {
    const credentials = await readCredentials(config.dataDir);
    if (!credentials) {
      return reply
        .status(404)
        .type("text/plain; charset=utf-8")
        .send("The example page uses the demo merchant of `svc dev`: start the service with `npm start`.");
    }
    const language = (request.query as { lang?: string }).lang === "ar" ? "ar" : "en";
    const created = await app.inject({
      method: "POST",
      url: "/v1/checkout",
      headers: { authorization: `Api-Key ${credentials.private_key}`, "content-type": "application/json" },
      payload: {
        type: "e_commerce",
        pg_codes: [credentials.pg_codes.sandbox, credentials.pg_codes.ndebit],
        amount: EXAMPLE_AMOUNT,
        currency_code: EXAMPLE_CURRENCY,
        order_no: `example-${Date.now()}`,
        customer_id: EXAMPLE_CUSTOMER,
        language,
        include_sdk_setup_preload: true,
      },
    });
    if (created.statusCode !== 201) return reply.status(502).type("application/json").send(created.body);
    const tx = created.json() as { session_id: string; sdk_setup_preload_payload: unknown };
    const page = examplePage({
      merchantId: credentials.merchant_id,
      publicKey: credentials.public_key,
      sessionId: tx.session_id,
      preload: tx.sdk_setup_preload_payload,
      language,
    });
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-security-policy", page.csp)
      .send(page.html);
  });
}
