/**
 * Discrepancies: operations a gateway reported that break a money rule, kept out of the totals
 * until an operator has reconciled them with the gateway and closed them with a note.
 */
import type { FastifyInstance } from "fastify";
import { AppError } from "../../http/problem.js";
import {
  type DashboardContext,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import { can, esc, field, PAGE_PERMISSIONS, postForm, time } from "../html.js";

const ID = /^dsc_[a-z2-7]{1,40}$/;

export function discrepancyPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.discrepancies } };

  scope.get("/discrepancies", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const { discrepancies } = await ctx.services().discrepancies.list(session.merchantId, { limit: 100 });
    const mayResolve = can(session.user, "payment.refund");
    const items = discrepancies
      .map((d) => {
        const resolution = d.resolution
          ? `<p><span class="badge good">Resolved</span> by ${esc(d.resolution.resolved_by ?? "—")}, ${time(d.resolution.resolved_at)}: ${esc(d.resolution.note ?? "")}</p>`
          : mayResolve
            ? postForm(
                `/dashboard/discrepancies/${d.id}/resolve`,
                session.csrfToken,
                `${field({ name: "note", label: "What was done about it", hint: "For the record, e.g. “reversed on the gateway’s dashboard”.", input: { required: true, maxlength: "1000" } }).replace(/f-note/g, `f-note-${d.id}`)}<button type="submit">Mark resolved</button>`,
              )
            : `<p><span class="badge bad">Open</span></p>`;
        return `<article aria-labelledby="h-${d.id}"><h2 id="h-${d.id}">${esc(d.operation)} of ${esc(d.amount)} ${esc(d.currency_code)} ${d.status === "open" ? '<span class="badge bad">Open</span>' : ""}</h2><p>${esc(d.detail)}</p><dl class="facts"><dt>Payment</dt><dd><a href="/dashboard/payments/${esc(d.session_id)}"><code>${esc(d.session_id)}</code></a></dd><dt>Gateway</dt><dd>${esc(d.pg_code)}, operation <code>${esc(d.gateway_operation_id)}</code></dd><dt>Rule</dt><dd><code>${esc(d.rule)}</code></dd><dt>Reported</dt><dd>${time(d.created_at)}</dd><dt>Reference</dt><dd><code>${esc(d.id)}</code></dd></dl>${resolution}</article>`;
      })
      .join("");
    const list = discrepancies.length
      ? `<p role="status">The latest ${discrepancies.length} ${discrepancies.length === 1 ? "discrepancy" : "discrepancies"}, newest first.</p>${items}`
      : `<p role="status">No discrepancies: every operation your gateways reported obeyed the money rules.</p>`;
    return render(
      ctx,
      request,
      reply,
      { title: "Discrepancies", current: "discrepancies" },
      `<p>A gateway reported these operations from its own dashboard, but each would refund or capture more than is left, or does not fit the payment's state or currency. They were <strong>not applied</strong> to the payments' totals and no webhook was sent. Check each with the gateway, put the money right there (or with the customer), then mark it resolved with what you did.</p>${list}`,
    );
  });

  scope.post(
    "/discrepancies/:id/resolve",
    { config: { dashboard: { permission: "payment.refund" } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const id = pathParam(request, "id");
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
