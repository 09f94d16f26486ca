/**
 * What every dashboard page gets: the session of the request, rendering with the security
 * headers, and the error type pages throw to show a message with a status.
 */
import type { Permission } from "@svc/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServiceConfig } from "../config.js";
import { Fragment, h } from "preact";
import type { VNode } from "../pages/jsx.js";
import { can, layout, type PageFrame } from "./html.js";
import { dashboardLanguage, messages, otherLanguageHref } from "./i18n.js";
import { DisabledBanner } from "./pages/endpoints.js";
import type { Lockout } from "../auth/lockout.js";
import type { DashboardSession, Flash, SessionStore } from "./session.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * Dashboard routes: `public` needs no session (sign-in); `asset` does not even read it (the
     * stylesheet, script and icon), so they load when the database is down and the page that
     * says so is styled; `permission` is enforced.
     */
    dashboard?: { public?: boolean; asset?: boolean; permission?: Permission };
  }
  interface FastifyRequest {
    dashboard: DashboardSession | undefined;
  }
}

export interface DashboardContext {
  config: ServiceConfig;
  now: () => Date;
  sessions: SessionStore;
  lockout: Lockout;
  /** The app's services, read at request time (they are decorated after the routes are declared). */
  services: () => FastifyInstance["services"];
}

/** A page-level failure: rendered as an HTML page with this status and message. */
export class DashboardError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /** True when title and message are already in the user's language (from the catalogue). */
    readonly translated = false,
  ) {
    super(message);
    this.name = "DashboardError";
  }
}

export const CSP =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.status(status).type("text/html; charset=utf-8").send(body);
}

/** The signed-in session; routes that are not public never run without one. */
export function sessionOf(request: FastifyRequest): DashboardSession {
  const session = request.dashboard;
  if (!session) {
    const t = messages(dashboardLanguage(request));
    throw new DashboardError(401, t.signed_out, t.signed_out_body, true);
  }
  return session;
}

/** Renders a page in the layout for the signed-in user; the flash shown here is consumed. */
export async function render<P>(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  frame: Omit<PageFrame, "user" | "csrf" | "flash" | "lang" | "switchHref">,
  body: VNode<P>,
  status = 200,
): Promise<FastifyReply> {
  const session = request.dashboard;
  if (session?.flash) await ctx.sessions.clearFlash(session.tokenHash);
  // Every page says so while a webhook endpoint is disabled for failing, to those who can fix it.
  const lang = dashboardLanguage(request, reply);
  const disabled =
    session && can(session.user, "webhooks.manage")
      ? await ctx.services().endpoints.disabledForFailing(session.merchantId)
      : [];
  const banner = h(DisabledBanner, { endpoints: disabled, lang });
  return sendHtml(
    reply,
    status,
    layout(
      {
        ...frame,
        user: session?.user,
        csrf: session?.csrfToken,
        flash: session?.flash,
        lang,
        switchHref: otherLanguageHref(request, lang),
      },
      h(Fragment, null, banner, body),
    ),
  );
}

/** Post/redirect/get with a notice for the next page. */
export async function redirectWithFlash(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  flash: Flash,
): Promise<FastifyReply> {
  await ctx.sessions.setFlash(sessionOf(request).tokenHash, flash);
  return reply.redirect(location, 303);
}

/** The string fields of a urlencoded form body (anything else is ignored). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const out: Record<string, string> = Object.create(null);
  if (typeof body !== "object" || body === null) return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === "string") out[k] = v.slice(0, 4096);
  }
  return out;
}

/** The string query parameters of a request. */
export function queryOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (typeof v === "string") out[k] = v.slice(0, 256);
  }
  return out;
}

/** A path parameter of the route (`/payments/:session_id` → `pathParam(request, "session_id")`). */
export function pathParam(request: FastifyRequest, name: string): string {
  const value: unknown = Object(request.params)[name];
  return typeof value === "string" ? value : "";
}
