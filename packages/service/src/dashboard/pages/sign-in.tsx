/** @jsxImportSource preact */
/**
 * Sign-in and sign-out. The sign-in form is protected against login CSRF by a double-submit
 * cookie (there is no session yet); failures count towards the lockout per username and per
 * address, and an unknown username costs the same scrypt work as a wrong password.
 */
import type { Permission } from "@svc/protocol";
import { auditDone } from "../../audit/audit.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { dummyPasswordHash, verifyPassword } from "../../auth/passwords.js";
import { auditRepo } from "../../audit/audit.repo.js";
import { merchantsRepo } from "../../merchants/merchants.repo.js";
import { type DashboardContext, formOf, queryOf, sendHtml } from "../context.js";
import { allowedOrigins, csrfProblem } from "../csrf.js";
import { layout } from "../html.js";
import { dashboardLanguage, format, type MessageKey, messages, otherLanguageHref } from "../i18n.js";
import { can, CsrfInput, ErrorSummary, Field, PAGE_PERMISSIONS } from "../ui.js";
import { cookieHeader, newToken, PRE_SESSION_COOKIE, readCookie, SESSION_COOKIE } from "../session.js";

/** Only a path inside the dashboard may be the target after sign-in (no open redirect). */
export function safeNext(value: string | undefined): string | undefined {
  if (!value || !/^\/dashboard(\/[A-Za-z0-9_\-./?=&%]*)?$/.test(value) || value.includes("//"))
    return undefined;
  return value;
}

/** The first page the user may open. */
export function homeFor(permissions: readonly string[]): string {
  if (permissions.includes(PAGE_PERMISSIONS.overview)) return "/dashboard/overview";
  if (permissions.includes(PAGE_PERMISSIONS.webhooks)) return "/dashboard/webhooks";
  if (permissions.includes(PAGE_PERMISSIONS.gateways)) return "/dashboard/gateways";
  return "/dashboard/account";
}

function signInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  options: {
    status?: number;
    username?: string;
    next?: string | undefined;
    problem?: MessageKey;
    values?: Record<string, number>;
  },
): FastifyReply {
  const lang = dashboardLanguage(request, reply);
  const t = messages(lang);
  const pre = newToken();
  reply.header("set-cookie", cookieHeader(PRE_SESSION_COOKIE, pre, { secure, maxAgeSeconds: 3600 }));
  const body = (
    <div class="sign-in panel">
      {options.problem && (
        <ErrorSummary
          heading={t.sign_in_failed}
          messages={[format(t[options.problem], options.values ?? {})]}
        />
      )}
      <form method="post" action="/dashboard/sign-in">
        <CsrfInput token={pre} />
        {options.next && <input type="hidden" name="next" value={options.next} />}
        <Field
          name="username"
          label={t.username}
          value={options.username ?? ""}
          input={{
            autocomplete: "username",
            required: true,
            autocapitalize: "none",
            spellcheck: "false",
            dir: "ltr",
          }}
        />
        <Field
          name="password"
          label={t.password}
          type="password"
          input={{ autocomplete: "current-password", required: true, dir: "ltr" }}
        />
        <button type="submit">{t.sign_in}</button>
      </form>
    </div>
  );
  return sendHtml(
    reply,
    options.status ?? 200,
    layout({ title: t.sign_in, lang, translated: true, switchHref: otherLanguageHref(request, lang) }, body),
  );
}

/** A sign-in, good or bad, in the merchant's audit log (a failed one only for a user that exists). */
async function recordSignIn(
  ctx: DashboardContext,
  request: FastifyRequest,
  user: { merchant_id: string; username: string },
  action: "user.signed_in" | "user.sign_in_failed",
): Promise<void> {
  await auditRepo
    .record(ctx.services().db, {
      merchantId: user.merchant_id,
      actorKind: "user",
      actor: user.username,
      action,
      target: null,
      detail: {},
      ip: request.ip,
      userAgent: request.headers["user-agent"] ?? null,
    })
    .catch((err: unknown) => request.log.warn({ err }, "audit record failed"));
}

export function signInPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const secure = ctx.config.publicUrl.startsWith("https://");
  const publicRoute = { dashboard: { public: true } };

  scope.get("/sign-in", { config: publicRoute }, async (request, reply) => {
    const next = safeNext(queryOf(request).next);
    if (request.dashboard) return reply.redirect(next ?? homeFor(request.dashboard.user.permissions), 303);
    return signInPage(request, reply, secure, { next });
  });

  scope.post("/sign-in", { config: publicRoute }, async (request: FastifyRequest, reply) => {
    const form = formOf(request);
    const next = safeNext(form.next);
    const username = (form.username ?? "").trim().slice(0, 150);
    const password = form.password ?? "";
    const pre = readCookie(request.headers.cookie, PRE_SESSION_COOKIE) ?? "";
    const problem = csrfProblem(request, pre, allowedOrigins(request, ctx.config.publicUrl));
    if (problem) return signInPage(request, reply, secure, { status: 403, username, next, problem });
    if (!username || !password)
      return signInPage(request, reply, secure, { status: 422, username, next, problem: "sign_in_empty" });

    // Claimed before the password is checked (atomically, shared with Basic auth on the API).
    const claim = await ctx.lockout.claim(username, request.ip);
    if (!claim.ok) {
      reply.header("retry-after", String(claim.retryAfterSeconds));
      return signInPage(request, reply, secure, {
        status: 429,
        username,
        next,
        problem: "sign_in_locked",
        values: { seconds: claim.retryAfterSeconds },
      });
    }
    const user = await merchantsRepo.findUserForSignIn(ctx.services().db, username);
    // An unknown user costs one verification against a hash of the same parameters, as a known one does.
    const ok = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
    if (!user || !ok) {
      if (user) await recordSignIn(ctx, request, user, "user.sign_in_failed");
      return signInPage(request, reply, secure, { status: 401, username, next, problem: "sign_in_wrong" });
    }
    await ctx.lockout.recordSuccess(username, request.ip);
    await recordSignIn(ctx, request, user, "user.signed_in");
    const { token } = await ctx.sessions.create(user, user.merchant_id);
    reply.header("set-cookie", [
      cookieHeader(SESSION_COOKIE, token, { secure }),
      cookieHeader(PRE_SESSION_COOKIE, "", { secure, maxAgeSeconds: 0 }),
    ]);
    return reply.redirect(next ?? homeFor(user.permissions as Permission[]), 303);
  });

  // CSRF is checked by the dashboard's POST hook like every other form.
  scope.post("/sign-out", async (request, reply) => {
    if (request.dashboard) {
      await ctx.sessions.destroy(request.dashboard.tokenHash);
      auditDone(request);
    }
    reply.header("set-cookie", cookieHeader(SESSION_COOKIE, "", { secure, maxAgeSeconds: 0 }));
    return reply.redirect("/dashboard/sign-in", 303);
  });

  scope.get("/", async (request, reply) =>
    reply.redirect(homeFor(request.dashboard?.user.permissions ?? []), 303),
  );

  // A user with no page permission still has somewhere to land.
  scope.get("/account", async (request, reply) => {
    const user = request.dashboard!.user;
    const lang = dashboardLanguage(request, reply);
    const t = messages(lang);
    return sendHtml(
      reply,
      200,
      layout(
        {
          title: t.account_title,
          user,
          csrf: request.dashboard!.csrfToken,
          lang,
          translated: true,
          switchHref: otherLanguageHref(request, lang),
        },
        <>
          <section>
            <h2>{t.account_permissions}</h2>
            {user.permissions.length ? (
              <ul>
                {user.permissions.map((p) => (
                  <li>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <p>{t.account_none}</p>
            )}
          </section>
          {can(user, "payment.view") && (
            <p>
              <a href="/dashboard/payments">{t.nav_payments}</a>
            </p>
          )}
        </>,
      ),
    );
  });
}
