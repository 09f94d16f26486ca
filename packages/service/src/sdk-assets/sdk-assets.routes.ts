/**
 * The checkout SDK for pages without a bundler, with CORS so that the module chunk also loads on
 * merchants' origins:
 * - `/sdk/svc-checkout.js` (and its reporter chunk): the current build, cached 5 minutes;
 * - `/sdk/{version}/svc-checkout.js`: the same build at an immutable URL, cached for a year;
 * - `/sdk/manifest.json`: the version, each file's immutable path and its `integrity` hash.
 * Files are sent brotli- or gzip-compressed as the client's Accept-Encoding allows.
 * GET /example/: the runnable example merchant page of `svc dev`.
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceConfig } from "../config.js";
import { AppError } from "../http/problem.js";
import { exampleRoutes } from "./example.routes.js";
import { manifestOf, SDK_FILES, type SdkBuild, type SdkFile, sharedSdkAssets } from "./sdk-assets.service.js";
import { typed } from "../http/schema.js";

const CACHE_MAX_AGE_S = 300;
const IMMUTABLE = "public, max-age=31536000, immutable";

/** `br` or `gzip` when the client accepts it (a `q=0` refuses), else the plain bytes. */
export function chooseEncoding(header: string | undefined): "br" | "gzip" | "identity" {
  const accepted = new Map<string, number>();
  for (const part of (header ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (ok("br")) return "br";
  if (ok("gzip")) return "gzip";
  return "identity";
}

export function sdkAssetRoutes(fastify: FastifyInstance, config: ServiceConfig): void {
  const app = typed(fastify);
  const assets = sharedSdkAssets();

  async function buildOr503(request: FastifyRequest, reply: FastifyReply): Promise<SdkBuild | undefined> {
    try {
      return await assets.build();
    } catch (error) {
      request.log.error({ err: error }, "checkout SDK build failed");
      void reply
        .status(503)
        .type("text/plain")
        .send("The checkout SDK is not built: run `npm run build -w @svc/checkout`.");
      return undefined;
    }
  }

  function sendFile(
    request: FastifyRequest,
    reply: FastifyReply,
    build: SdkBuild,
    file: SdkFile,
    cache: string,
  ) {
    const body = build.files[file];
    const encoding = chooseEncoding(request.headers["accept-encoding"]);
    if (encoding !== "identity") reply.header("content-encoding", encoding);
    return reply
      .type("text/javascript; charset=utf-8")
      .header("access-control-allow-origin", "*")
      .header("cache-control", cache)
      .header("vary", "accept-encoding")
      .header("x-content-type-options", "nosniff")
      .send(encoding === "identity" ? body.identity : body[encoding]);
  }

  const notFound = (what: string) =>
    new AppError(
      "route_not_found",
      `There is no /sdk/${what}; the SDK is /sdk/svc-checkout.js, and /sdk/manifest.json lists the current build's immutable URLs.`,
    );

  app.get("/sdk/manifest.json", { schema: { hide: true } }, async (request, reply) => {
    const build = await buildOr503(request, reply);
    if (!build) return reply;
    return reply
      .header("access-control-allow-origin", "*")
      .header("cache-control", `public, max-age=${CACHE_MAX_AGE_S}`)
      .send(manifestOf(build));
  });

  app.get(
    "/sdk/:file",
    { schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
    async (request, reply) => {
      const { file } = request.params;
      if (!SDK_FILES.includes(file as SdkFile)) throw notFound(file);
      const build = await buildOr503(request, reply);
      if (!build) return reply;
      return sendFile(request, reply, build, file as SdkFile, `public, max-age=${CACHE_MAX_AGE_S}`);
    },
  );

  app.get(
    "/sdk/:version/:file",
    { schema: { hide: true, params: Type.Object({ version: Type.String(), file: Type.String() }) } },
    async (request, reply) => {
      const { version, file } = request.params;
      if (!SDK_FILES.includes(file as SdkFile)) throw notFound(`${version}/${file}`);
      const build = await buildOr503(request, reply);
      if (!build) return reply;
      // Only the running build is served: an old version's URL is a 404, never other bytes.
      if (version !== build.version) throw notFound(`${version}/${file}`);
      return sendFile(request, reply, build, file as SdkFile, IMMUTABLE);
    },
  );

  // Only under `svc dev`: the page creates transactions with the demo merchant's private key.
  if (config.exampleShop) exampleRoutes(app, config, assets);
}
