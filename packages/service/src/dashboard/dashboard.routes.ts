/**
 * The merchant dashboard at /dashboard: server-rendered pages in their own Fastify scope, with
 * their own authentication (a cookie session, not the API's Authorization header), CSRF checks on
 * every POST, permission checks per route, HTML error pages and a strict CSP.
 *
 * Order for a request: load the session from the cookie (onRequest) → unauthenticated GETs go to
 * sign-in, POSTs without a session are refused → every POST passes the CSRF and Origin checks →
 * the route's permission → the page.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceConfig } from "../config.js";
import { AppError, retryLater } from "../http/problem.js";
import { DASHBOARD_CSS, DASHBOARD_FAVICON, DASHBOARD_JS } from "./assets.js";
import { CSP, type DashboardContext, DashboardError, sendHtml } from "./context.js";
import { allowedOrigins, csrfProblem } from "./csrf.js";
import { Fragment, h } from "preact";
import { layout } from "./html.js";
import { dashboardLanguage, format, isolate, type MessageKey, messages, otherLanguageHref } from "./i18n.js";
import { createLockout } from "../auth/lockout.js";
import { deliveryPages } from "./pages/deliveries.js";
import { discrepancyPages } from "./pages/discrepancies.js";
import { gatewayPages } from "./pages/gateways.js";
import { keysPages } from "./pages/keys.js";
import { operationPages, operationSections } from "./pages/operations.js";
import { paymentPages } from "./pages/payment.js";
import { paymentRequestPages } from "./pages/payment-request.js";
import { paymentsListPages } from "./pages/payments-list.js";
import { sdkPages } from "./pages/sdk.js";
import { signInPages } from "./pages/sign-in.js";
import { webhookPages } from "./pages/webhooks.js";
import { endpointPages } from "./pages/endpoints.js";
import { overviewPages } from "./pages/overview.js";
import { auditPages } from "./pages/audit.js";
import { createSessionStore, readCookie, SESSION_COOKIE } from "./session.js";

export function dashboardRoutes(
  app: FastifyInstance,
  deps: { config: ServiceConfig; now: () => Date },
): void {
  app.register(
    async (scope) => {
      // The scope loads after buildApp has decorated the services.
      const ctx: DashboardContext = {
        config: deps.config,
        now: deps.now,
        sessions: createSessionStore(app.services.db, deps.now),
        lockout: createLockout(app.services.db, deps.now),
        services: () => app.services,
      };
      scope.decorateRequest("dashboard", undefined);
      // Pages are not part of the HTTP API's OpenAPI document.
      scope.addHook("onRoute", (route) => {
        route.schema = { ...route.schema, hide: true };
      });

      scope.addHook("onRequest", async (request, reply) => {
        const config = request.routeOptions.config.dashboard ?? {};
        // The stylesheet, script and icon are the same for everyone: no session lookup, so they
        // load when the database does not answer (the page saying so is then styled).
        if (config.asset) return;
        const token = readCookie(request.headers.cookie, SESSION_COOKIE);
        request.dashboard = token ? await ctx.sessions.load(token) : undefined;
        if (request.dashboard) {
          const { merchantId, user } = request.dashboard;
          request.principal = { kind: "user", merchantId, credential: `user:${user.id}`, user };
        }
        if (config.public || request.dashboard) return;
        if (request.method === "GET" || request.method === "HEAD") {
          const next = request.url.startsWith("/dashboard") ? request.url : "/dashboard";
          return reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(next)}`, 303);
        }
        const t = messages(dashboardLanguage(request));
        throw new DashboardError(401, t.signed_out, t.signed_out_body, true);
      });

      scope.addHook("preHandler", async (request) => {
        const session = request.dashboard;
        if (request.method === "POST" && session) {
          const problem = csrfProblem(
            request,
            session.csrfToken,
            allowedOrigins(request, ctx.config.publicUrl),
          );
          if (problem) {
            const t = messages(dashboardLanguage(request));
            throw new DashboardError(403, t.refused, t[problem], true);
          }
        }
        const permission = request.routeOptions.config.dashboard?.permission;
        if (permission && session && !session.user.permissions.includes(permission)) {
          const lang = dashboardLanguage(request);
          const t = messages(lang);
          throw new DashboardError(
            403,
            t.permission_needed,
            format(t.permission_body, {
              permission: isolate(lang, permission),
              user: isolate(lang, session.user.username),
            }),
            true,
          );
        }
      });

      scope.addHook("onSend", async (_request, reply, payload) => {
        reply.header("content-security-policy", CSP);
        reply.header("cache-control", "no-store");
        reply.header("referrer-policy", "same-origin");
        reply.header("x-content-type-options", "nosniff");
        reply.header("x-frame-options", "DENY");
        return payload;
      });

      // Error pages in the user's language: titles and the service's own words translated; a
      // message from elsewhere (a page's, the API's) stays English, marked so.
      const TITLES: Record<string, MessageKey> = {
        "Not found": "not_found",
        "Request refused": "refused",
        "Signed out": "signed_out",
        "Permission needed": "permission_needed",
      };
      const errorPage = (
        request: FastifyRequest,
        reply: FastifyReply,
        status: number,
        title: string,
        message: { text: string; english?: boolean },
      ) => {
        const lang = dashboardLanguage(request, reply);
        const session = request.dashboard;
        const english = message.english && lang === "ar";
        return sendHtml(
          reply,
          status,
          layout(
            {
              title,
              user: session?.user,
              csrf: session?.csrfToken,
              lang,
              translated: true,
              switchHref: otherLanguageHref(request, lang),
            },
            h(
              Fragment,
              null,
              h(
                "div",
                { class: "notice error", role: "alert" },
                h("p", english ? { lang: "en", dir: "ltr" } : null, message.text),
              ),
              h("p", null, h("a", { href: "/dashboard" }, messages(lang).back)),
            ),
          ),
        );
      };

      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const t = messages(dashboardLanguage(request));
        if (error instanceof DashboardError) {
          if (error.translated)
            return errorPage(request, reply, error.status, error.title, { text: error.message });
          const key = TITLES[error.title];
          return errorPage(request, reply, error.status, key ? t[key] : error.title, {
            text: error.message,
            english: true,
          });
        }
        if (error instanceof AppError)
          return errorPage(request, reply, error.status, error.status === 404 ? t.not_found : t.refused, {
            text: error.message,
            english: true,
          });
        // A form over the body limit (1 MB): Fastify's 413, once a 500 page here.
        if (error.statusCode === 413)
          return errorPage(request, reply, 413, t.too_large, { text: t.too_large_body });
        if (error.validation || error.statusCode === 400 || error.statusCode === 415)
          return errorPage(request, reply, 400, t.bad_request, { text: t.bad_request_body });
        const later = retryLater(error, request, reply);
        if (later)
          return later === "database_conflict"
            ? errorPage(request, reply, 503, t.conflict, { text: t.conflict_body })
            : errorPage(request, reply, 503, t.unavailable, { text: t.unavailable_body });
        request.log.error({ err: error }, "dashboard error");
        return errorPage(request, reply, 500, t.went_wrong, {
          text: format(t.went_wrong_body, { id: request.id }),
        });
      });

      scope.setNotFoundHandler((request, reply) => {
        const lang = dashboardLanguage(request, reply);
        const t = messages(lang);
        return sendHtml(
          reply,
          404,
          layout(
            {
              title: t.not_found,
              user: request.dashboard?.user,
              csrf: request.dashboard?.csrfToken,
              lang,
              translated: true,
              switchHref: otherLanguageHref(request, lang),
            },
            h(Fragment, null, h("p", null, t.no_page), h("p", null, h("a", { href: "/dashboard" }, t.back))),
          ),
        );
      });

      const asset = { config: { dashboard: { asset: true } } };
      scope.get("/assets/dashboard.css", asset, (_r, reply) =>
        reply.type("text/css; charset=utf-8").send(DASHBOARD_CSS),
      );
      scope.get("/assets/dashboard.js", asset, (_r, reply) =>
        reply.type("text/javascript; charset=utf-8").send(DASHBOARD_JS),
      );
      scope.get("/assets/favicon.svg", asset, (_r, reply) =>
        reply.type("image/svg+xml").header("cache-control", "public, max-age=86400").send(DASHBOARD_FAVICON),
      );

      signInPages(scope, ctx);
      paymentsListPages(scope, ctx);
      paymentRequestPages(scope, ctx);
      paymentPages(scope, ctx, operationSections);
      operationPages(scope, ctx);
      sdkPages(scope, ctx);
      keysPages(scope, ctx);
      overviewPages(scope, ctx);
      auditPages(scope, ctx);
      webhookPages(scope, ctx);
      endpointPages(scope, ctx);
      deliveryPages(scope, ctx);
      discrepancyPages(scope, ctx);
      gatewayPages(scope, ctx);
    },
    { prefix: "/dashboard" },
  );
}
