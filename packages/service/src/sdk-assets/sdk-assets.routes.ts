/**
 * GET /sdk/svc-checkout.js (and its reporter chunk): the checkout SDK for pages without a
 * bundler, with CORS so that the module chunk also loads on merchants' origins. GET /example/:
 * the runnable example merchant page of `svc dev`.
 */
import type { FastifyInstance } from "fastify";
import type { ServiceConfig } from "../config.js";
import { AppError } from "../http/problem.js";
import { exampleRoutes } from "./example.routes.js";
import { createSdkAssets, SDK_FILES, type SdkFile } from "./sdk-assets.service.js";

const CACHE_MAX_AGE_S = 300;

export function sdkAssetRoutes(app: FastifyInstance, config: ServiceConfig): void {
  const assets = createSdkAssets();
  app.get("/sdk/:file", { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    if (!SDK_FILES.includes(file as SdkFile))
      throw new AppError("route_not_found", `There is no /sdk/${file}; the SDK is /sdk/svc-checkout.js.`);
    let body: Buffer;
    try {
      body = await assets.read(file as SdkFile);
    } catch (error) {
      request.log.error({ err: error }, "checkout SDK build failed");
      return reply
        .status(503)
        .type("text/plain")
        .send("The checkout SDK is not built: run `npm run build -w @svc/checkout`.");
    }
    return reply
      .type("text/javascript; charset=utf-8")
      .header("access-control-allow-origin", "*")
      .header("cache-control", `public, max-age=${CACHE_MAX_AGE_S}`)
      .send(body);
  });
  // Only under `svc dev`: the page creates transactions with the demo merchant's private key.
  if (config.exampleShop) exampleRoutes(app, config);
}
