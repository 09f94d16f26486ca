/**
 * Discrepancies: operations a gateway reported that break a money rule, kept out of the totals
 * until an operator has reconciled them with the gateway and closed them with a note.
 */
import type { FastifyInstance } from "fastify";
import { AppError } from "../../http/problem.js";
import { type DashboardContext, formOf, redirectWithFlash, render, sessionOf } from "../context.js";
import { can, esc, field, PAGE_PERMISSIONS, postForm, time } from "../html.js";

const ID = /^dsc_[a-z2-7]{1,40}$/;

export function discrepancyPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.discrepancies } };

  scope.get("/discrepancies", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const { discrepancies } = await ctx.services().discrepancies.list(session.merchantId, { limit: 100 });
    const mayResolve = can(session.user, "payment.refund");
    const rows = discrepancies
      .map((d) => {
        const resolution = d.resolution
          ? `Resolved by ${esc(d.resolution.resolved_by ?? "—")}, ${time(d.resolution.resolved_at)}: ${esc(d.resolution.note ?? "")}`
          : mayResolve
            ? postForm(
                `/dashboard/discrepancies/${d.id}/resolve`,
                session.csrfToken,
                `${field({ name: "note", label: "What was done about it", hint: "For the record, e.g. “reversed on the gateway’s dashboard”.", attrs: 'required maxlength="1000"' }).replace(/f-note/g, `f-note-${d.id}`)}<button type="submit">Mark resolved</button>`,
              )
            : "Open";
        return `<tr><td>${time(d.created_at)}</td><td><a href="/dashboard/payments/${esc(d.session_id)}"><code>${esc(d.session_id)}</code></a><br><code>${esc(d.id)}</code></td><td>${esc(d.operation)} ${esc(d.amount)} ${esc(d.currency_code)}<br><span class="muted">${esc(d.pg_code)} · ${esc(d.gateway_operation_id)}</span></td><td>${esc(d.detail)} <span class="muted">(${esc(d.rule)})</span></td><td>${resolution}</td></tr>`;
      })
      .join("");
    const table = discrepancies.length
      ? `<table><caption>The latest ${discrepancies.length} discrepancies, newest first</caption><thead><tr><th scope="col">Reported</th><th scope="col">Payment</th><th scope="col">Operation at the gateway</th><th scope="col">Rule broken</th><th scope="col">Resolution</th></tr></thead><tbody>${rows}</tbody></table>`
      : `<p role="status">No discrepancies: every operation your gateways reported obeyed the money rules.</p>`;
    return render(
      ctx,
      request,
      reply,
      { title: "Discrepancies", current: "discrepancies" },
      `<p>A gateway reported these operations from its own dashboard, but each would refund or capture more than is left, or does not fit the payment's state or currency. They were <strong>not applied</strong> to the payments' totals and no webhook was sent. Check each with the gateway, put the money right there (or with the customer), then mark it resolved with what you did.</p>${table}`,
    );
  });

  scope.post(
    "/discrepancies/:id/resolve",
    { config: { dashboard: { permission: "payment.refund" } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const id = (request.params as { id: string }).id;
      const note = formOf(request).note?.trim() ?? "";
      if (!ID.test(id) || !note || note.length > 1000)
        return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
          kind: "error",
          text: "Write what was done about the discrepancy (1 to 1,000 characters), then mark it resolved.",
        });
      try {
        await ctx.services().discrepancies.resolve(session.merchantId, id, note, session.user.username);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
          kind: "error",
          text: error.message,
        });
      }
      return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
        kind: "success",
        text: `Discrepancy ${id} is resolved.`,
      });
    },
  );
}
