/**
 * GET /example/: what a merchant's checkout page does, with the demo merchant of `svc dev`.
 * The server side creates a transaction through the real Checkout API with the private key
 * (as a merchant's backend would), and the page mounts the SDK with the public key.
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { ServiceConfig } from "../config.js";
import { readCredentials } from "../dev/seed.js";
import { EXAMPLE_FORMS, type ExampleForms, examplePage } from "./example.html.js";
import type { SdkAssets } from "./sdk-assets.service.js";
import { typed } from "../http/schema.js";

const EXAMPLE_AMOUNT = "10.500";
const EXAMPLE_CURRENCY = "KWD";
const EXAMPLE_CUSTOMER = "example-customer";

/**
 * The shop's language: `?lang=` when given, else the browser's (Accept-Language), so the
 * transaction's backend texts match the language the SDK picks from the same browser (the seed:
 * the transaction's language should be the device's).
 */
export function exampleLanguage(query: string | undefined, acceptLanguage: string | undefined): "en" | "ar" {
  if (query === "ar" || query === "en") return query;
  const first = (acceptLanguage ?? "").split(",")[0]?.trim() ?? "";
  return /^ar\b/i.test(first) ? "ar" : "en";
}

export function exampleRoutes(fastify: FastifyInstance, config: ServiceConfig, assets: SdkAssets): void {
  const app = typed(fastify);
  app.get(
    "/example/",
    {
      schema: {
        hide: true,
        querystring: Type.Object({ lang: Type.Optional(Type.String()), forms: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const credentials = await readCredentials(config.dataDir);
      if (!credentials) {
        return reply
          .status(404)
          .type("text/plain; charset=utf-8")
          .send("The example page uses the demo merchant of `svc dev`: start the service with `npm start`.");
      }
      const query = request.query;
      const language = exampleLanguage(query.lang, request.headers["accept-language"]);
      const forms: ExampleForms =
        query.forms && query.forms in EXAMPLE_FORMS ? (query.forms as ExampleForms) : "all";
      const build = await assets.build().catch(() => undefined);
      const created = await app.inject({
        method: "POST",
        url: "/v1/checkout",
        headers: { authorization: `Api-Key ${credentials.private_key}`, "content-type": "application/json" },
        payload: {
          type: "e_commerce",
          // KNET's page or Stripe through `svc dev`'s stand-ins, when there are; else the sandbox's.
          pg_codes:
            forms === "knet" && credentials.pg_codes.knet
              ? [credentials.pg_codes.knet]
              : forms === "stripe" && credentials.pg_codes.stripe
                ? [credentials.pg_codes.stripe]
                : [credentials.pg_codes.sandbox, credentials.pg_codes.ndebit],
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
        browserLanguage: exampleLanguage(undefined, request.headers["accept-language"]),
        forms,
        sdk: build
          ? {
              src: `/sdk/${build.version}/svc-checkout.js`,
              integrity: build.files["svc-checkout.js"].integrity,
            }
          : { src: "/sdk/svc-checkout.js" },
      });
      return reply
        .type("text/html; charset=utf-8")
        .header("cache-control", "no-store")
        .header("content-security-policy", page.csp)
        .send(page.html);
    },
  );
}
