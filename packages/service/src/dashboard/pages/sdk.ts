/** SDK settings: error reporting on or off (`is_enabled` of the studio configuration) and the reports. */
import type { FastifyInstance } from "fastify";
import { type DashboardContext, formOf, redirectWithFlash, render, sessionOf } from "../context.js";
import { scriptTag, sharedSdkAssets } from "../../sdk-assets/sdk-assets.service.js";
import { checkbox, esc, PAGE_PERMISSIONS, postForm, time } from "../html.js";

interface ReportRow {
  id: string;
  session_id: string | null;
  message: string;
  form_of_payment: string | null;
  user_agent: string | null;
  created_at: Date;
}

export function sdkPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.sdk } };

  scope.get("/sdk", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const { sdk } = ctx.services();
    const [studio, reports, build] = await Promise.all([
      sdk.config(session.merchantId),
      sdk.list(session.merchantId, 100) as Promise<unknown[]> as Promise<ReportRow[]>,
      sharedSdkAssets()
        .build()
        .catch(() => undefined),
    ]);
    const install = build
      ? `<p>This build's script at its immutable URL, with its Subresource Integrity hash (the browser refuses a file that differs by one byte). The values change with each svc release: copy them again after an upgrade, or read <code>/sdk/manifest.json</code>.</p><pre><code>${esc(scriptTag(ctx.config.publicUrl, build))}</code></pre>`
      : "<p>The checkout SDK is not built on this server.</p>";
    const enabled = studio.error_reporting.is_enabled;
    const form = postForm(
      "/dashboard/sdk",
      session.csrfToken,
      `${checkbox({ name: "is_enabled", label: "Report SDK errors to svc", checked: enabled, hint: "Turn this off when your app has its own error reporting, to avoid conflicts." })}<button type="submit">Save</button>`,
    );
    const table = reports.length
      ? `<table class="stack"><caption>The latest ${reports.length} SDK error reports</caption><thead><tr><th scope="col">Time</th><th scope="col">Message</th><th scope="col">Form of payment</th><th scope="col">Session</th><th scope="col">User agent</th></tr></thead><tbody>${reports
          .map(
            (r) =>
              `<tr><td data-label="Time">${time(r.created_at)}</td><td data-label="Message">${esc(r.message)}</td><td data-label="Form of payment">${esc(r.form_of_payment ?? "—")}</td><td data-label="Session">${r.session_id ? `<code>${esc(r.session_id)}</code>` : "—"}</td><td data-label="User agent" class="muted">${esc(r.user_agent ?? "—")}</td></tr>`,
          )
          .join("")}</tbody></table>`
      : "<p>No SDK error reports.</p>";
    return render(
      ctx,
      request,
      reply,
      { title: "SDK settings", current: "sdk" },
      `<section aria-labelledby="inst-h"><h2 id="inst-h">Script tag</h2>${install}</section>
<section aria-labelledby="rep-h"><h2 id="rep-h">Error reporting</h2><p>Currently <strong>${enabled ? "on" : "off"}</strong>. The SDK reads this as <code>error_reporting.is_enabled</code> from <code>GET /v1/sdk/config</code>.</p>${form}</section>
<section aria-labelledby="list-h"><h2 id="list-h">Error reports</h2>${table}</section>`,
    );
  });

  scope.post("/sdk", { config }, async (request, reply) => {
    const enabled = formOf(request).is_enabled === "on";
    await ctx.services().sdk.setErrorReporting(sessionOf(request).merchantId, enabled);
    return redirectWithFlash(ctx, request, reply, "/dashboard/sdk", {
      kind: "success",
      text: `SDK error reporting is now ${enabled ? "on" : "off"}.`,
    });
  });
}
