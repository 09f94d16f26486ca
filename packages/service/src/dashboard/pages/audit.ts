/** The audit log page: who did what, when and from where, newest first, 50 at a time. */
import type { FastifyInstance } from "fastify";
import { auditRepo } from "../../audit/audit.repo.js";
import { auditPage } from "../../audit/audit.routes.js";
import { type DashboardContext, queryOf, render, sessionOf } from "../context.js";
import { esc, PAGE_PERMISSIONS, time } from "../html.js";

const ACTIONS: Record<string, string> = {
  "operation.refund": "Refunded",
  "operation.capture": "Captured",
  "operation.void": "Voided",
  "payment_request.created": "Created a payment request",
  "webhooks.config_changed": "Changed the webhook settings",
  "webhooks.plugin_changed": "Changed a webhook plugin",
  "webhooks.secret_revealed": "Revealed the signing secret",
  "webhooks.secret_rotated": "Rotated the signing secret",
  "webhooks.test_sent": "Sent a test webhook",
  "webhooks.endpoint_created": "Added a webhook endpoint",
  "webhooks.endpoint_changed": "Changed a webhook endpoint",
  "webhooks.endpoint_deleted": "Deleted a webhook endpoint",
  "webhooks.replayed": "Replayed webhooks",
  "webhooks.sent_to_current_url": "Sent a webhook to the current URL",
  "key.created": "Created an API key",
  "key.revoked": "Revoked an API key",
  "sdk.settings_changed": "Changed the SDK settings",
  "user.signed_in": "Signed in",
  "user.sign_in_failed": "Failed to sign in",
  "user.signed_out": "Signed out",
};

export function auditPages(scope: FastifyInstance, ctx: DashboardContext): void {
  scope.get(
    "/audit",
    { config: { dashboard: { permission: PAGE_PERMISSIONS.audit } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const before = Number.parseInt(queryOf(request).before ?? "", 10);
      const page = auditPage(
        await auditRepo.list(
          ctx.services().db,
          session.merchantId,
          50,
          Number.isSafeInteger(before) && before > 0 ? before : undefined,
        ),
        50,
      );
      const rows = page.data
        .map((e) => {
          const detail = Object.entries(e.detail ?? {})
            .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
            .join(", ");
          return `<tr><td data-label="When">${time(e.at)}</td><td data-label="Who">${esc(e.actor)}${e.actor_kind === "api_key" ? " (API key)" : ""}</td><td data-label="What">${esc(ACTIONS[e.action] ?? e.action)}${e.target ? ` <code>${esc(e.target)}</code>` : ""}${detail ? `<br><span class="hint">${esc(detail)}</span>` : ""}</td><td data-label="From">${esc(e.ip ?? "—")}</td></tr>`;
        })
        .join("");
      const table = page.data.length
        ? `<table class="stack"><caption>Newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">From</th></tr></thead><tbody>${rows}</tbody></table>`
        : "<p>Nothing recorded yet.</p>";
      const more = page.next_before
        ? `<nav class="pager" aria-label="Pages"><a href="/dashboard/audit?before=${page.next_before}" rel="next">Older</a></nav>`
        : "";
      return render(
        ctx,
        request,
        reply,
        { title: "Audit log", current: "audit" },
        `<p class="hint">Who did what to this account, when and from where: sign-ins, refunds, captures and voids, webhook settings and endpoints, keys, the signing secret, replays. The same list: <code>GET /v1/audit-events</code>.</p>${table}${more}`,
      );
    },
  );
}
