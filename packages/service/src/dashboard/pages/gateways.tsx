/** @jsxImportSource preact */
/**
 * Gateways: the merchant's gateway settings (pg_codes), an add form and an edit page per setting,
 * for users with `gateways.manage`. The same service as the operator API
 * (`gatewaySettings`), so the rules are its own; credentials are write-only there and here: a
 * page shows only their hint and never puts a credential into an input, not even one just typed
 * into a refused form. English and Arabic; the service's refusals (English) are marked so.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { auditDone } from "../../audit/audit.js";
import { AppError } from "../../http/problem.js";
import type { VNode } from "../../pages/jsx.js";
import { GATEWAY_HOSTS, type GatewaySettingView } from "../../gateways/settings.service.js";
import {
  type DashboardContext,
  DashboardError,
  formOf,
  pathParam,
  redirectWithFlash,
  render,
  sessionOf,
} from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { label } from "../labels.js";
import { PAGE_PERMISSIONS, Time } from "../ui.js";
import {
  createInputOf,
  type FormState,
  GATEWAYS_BASE,
  GatewayForm,
  serviceErrorsOf,
  updateInputOf,
  withoutCredentials,
} from "./gateway-form.js";
import {
  CREDENTIAL_INPUTS,
  GATEWAY_WORDS,
  type GatewayWords,
  isRealKind,
  KIND_NAMES,
} from "./gateway-words.js";

const PG_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What may be shown of a setting's credentials: each field's name and its hint ("…4321", saved). */
function CredentialHints({ g, w }: { g: GatewaySettingView; w: GatewayWords }): VNode | string {
  if (!isRealKind(g.kind)) return w.no_credentials;
  return (
    <>
      {CREDENTIAL_INPUTS[g.kind].map((f) => {
        const hint = g.credentials?.[f.name];
        return (
          <span class="cred">
            {w[f.name]}{" "}
            {hint && hint !== "set" ? (
              <code dir="ltr">{hint}</code>
            ) : (
              <strong>{hint ? w.cred_set : "—"}</strong>
            )}
          </span>
        );
      })}
    </>
  );
}

/** The API host when it is not the gateway's own: KNET's test host by name, anything else as it is. */
function HostOf({ g, w }: { g: GatewaySettingView; w: GatewayWords }): VNode | string {
  if (!g.api_base_url) return isRealKind(g.kind) ? w.default_host : "—";
  if (g.kind === "knet" && g.api_base_url === GATEWAY_HOSTS.knet.test)
    return (
      <>
        {w.knet_test_host}
        <br />
        <code class="url">{g.api_base_url}</code>
      </>
    );
  return <code class="url">{g.api_base_url}</code>;
}

/** Said before anything is typed when this service cannot seal credentials (no SVC_SECRETS_KEY). */
function NoKeyNotice({ ctx, w }: { ctx: DashboardContext; w: GatewayWords }): VNode | null {
  if (ctx.config.secretsKey) return null;
  return (
    <div class="notice">
      <p>{w.no_key_ahead}</p>
    </div>
  );
}

async function listPage(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const lang = dashboardLanguage(request);
  const w = GATEWAY_WORDS[lang];
  const gateways = await ctx.services().gatewaySettings.list(session.merchantId);
  return render(
    ctx,
    request,
    reply,
    { title: w.title_list, current: "gateways", translated: true },
    <>
      <p class="actions">
        <a class="button" href={`${GATEWAYS_BASE}/new`}>
          {w.add}
        </a>
      </p>
      <p class="hint">{w.intro}</p>
      <NoKeyNotice ctx={ctx} w={w} />
      {gateways.length === 0 ? (
        <p>{w.none}</p>
      ) : (
        <table class="stack gateways">
          <caption>{w.caption}</caption>
          <thead>
            <tr>
              <th scope="col">{w.gateway}</th>
              <th scope="col">{w.kind}</th>
              <th scope="col">{w.currencies}</th>
              <th scope="col">{w.operation}</th>
              <th scope="col">{w.credentials}</th>
              <th scope="col">{w.api_host}</th>
              <th scope="col">{w.changed}</th>
            </tr>
          </thead>
          <tbody>
            {gateways.map((g) => (
              <tr>
                <td data-label={w.gateway}>
                  <a href={`${GATEWAYS_BASE}/${encodeURIComponent(g.pg_code)}`}>
                    <bdi>{g.name}</bdi>
                  </a>
                  {g.name !== g.pg_code && (
                    <>
                      <br />
                      <code>{g.pg_code}</code>
                    </>
                  )}
                </td>
                <td data-label={w.kind}>{KIND_NAMES[lang][g.kind] ?? g.kind}</td>
                <td data-label={w.currencies}>
                  <code>{g.currencies.join(", ")}</code>
                </td>
                <td data-label={w.operation}>{label(g.operation, lang)}</td>
                <td data-label={w.credentials}>
                  <CredentialHints g={g} w={w} />
                </td>
                <td data-label={w.api_host}>
                  <HostOf g={g} w={w} />
                </td>
                <td data-label={w.changed}>
                  <Time value={g.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>,
  );
}

async function formPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  setting: GatewaySettingView | undefined,
  state: FormState = {},
  status = 200,
) {
  const session = sessionOf(request);
  const lang = dashboardLanguage(request);
  const w = GATEWAY_WORDS[lang];
  const title = setting ? format(w.title_one, { name: isolate(lang, setting.name) }) : w.title_new;
  return render(
    ctx,
    request,
    reply,
    { title, current: "gateways", translated: true },
    <GatewayForm setting={setting} state={state} lang={lang} csrf={session.csrfToken}>
      <p>
        <a href={GATEWAYS_BASE}>{w.all_gateways}</a>
      </p>
      {!state.noKey && (!setting || isRealKind(setting.kind)) && <NoKeyNotice ctx={ctx} w={w} />}
      {setting && <Facts setting={setting} lang={lang} />}
    </GatewayForm>,
    status,
  );
}

function Facts({ setting, lang }: { setting: GatewaySettingView; lang: DashboardLanguage }): VNode {
  const w = GATEWAY_WORDS[lang];
  return (
    <section aria-labelledby="facts-h">
      <h2 id="facts-h">{w.facts}</h2>
      <dl class="facts">
        <dt>{w.pg_code_fixed}</dt>
        <dd>
          <code>{setting.pg_code}</code>
        </dd>
        <dt>{w.kind}</dt>
        <dd>{KIND_NAMES[lang][setting.kind] ?? setting.kind}</dd>
        {setting.kind === "knet" && (
          <>
            <dt>{w.currencies}</dt>
            <dd>
              <code>KWD</code>
            </dd>
            <dt>{w.operation}</dt>
            <dd>{label("purchase", lang)}</dd>
          </>
        )}
        <dt>{w.created}</dt>
        <dd>
          <Time value={setting.created_at} />
        </dd>
        <dt>{w.changed}</dt>
        <dd>
          <Time value={setting.updated_at} />
        </dd>
      </dl>
    </section>
  );
}

export function gatewayPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.gateways } };
  const words = (request: FastifyRequest) => GATEWAY_WORDS[dashboardLanguage(request)];
  const notFound = (request: FastifyRequest) =>
    new DashboardError(404, messages(dashboardLanguage(request)).not_found, words(request).not_found, true);
  const load = async (request: FastifyRequest) => {
    const code = pathParam(request, "pg_code");
    if (!PG_CODE.test(code)) throw notFound(request);
    try {
      return await ctx.services().gatewaySettings.get(sessionOf(request).merchantId, code);
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") throw notFound(request);
      throw error;
    }
  };
  /** The refused form again: what was typed kept, except any credential. */
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    setting: GatewaySettingView | undefined,
    form: Record<string, string>,
    error: unknown,
  ) => {
    if (!(error instanceof AppError)) throw error;
    const values = withoutCredentials(form);
    if (error.code === "secrets_key_missing")
      return formPage(ctx, request, reply, setting, { values, noKey: true }, 503);
    if (error.code === "not_found" && setting) throw notFound(request);
    const errors = serviceErrorsOf(error, setting?.kind ?? form.kind ?? "");
    return formPage(ctx, request, reply, setting, { values, errors, english: true }, error.status);
  };

  scope.get("/gateways", { config }, async (request, reply) => listPage(ctx, request, reply));
  scope.get("/gateways/new", { config }, async (request, reply) => formPage(ctx, request, reply, undefined));
  scope.get("/gateways/:pg_code", { config }, async (request, reply) =>
    formPage(ctx, request, reply, await load(request)),
  );

  scope.post("/gateways", { config }, async (request, reply) => {
    const w = words(request);
    const form = formOf(request);
    const parsed = createInputOf(form, w);
    if ("errors" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        undefined,
        { values: withoutCredentials(form), errors: parsed.errors },
        422,
      );
    try {
      const created = await ctx
        .services()
        .gatewaySettings.create(sessionOf(request).merchantId, parsed.input);
      auditDone(request);
      return redirectWithFlash(ctx, request, reply, GATEWAYS_BASE, {
        kind: "success",
        text: format(w.added, { code: isolate(dashboardLanguage(request), created.pg_code) }),
      });
    } catch (error) {
      return refused(request, reply, undefined, form, error);
    }
  });

  scope.post("/gateways/:pg_code", { config }, async (request, reply) => {
    const w = words(request);
    const setting = await load(request);
    const form = formOf(request);
    const parsed = updateInputOf(setting, form, w);
    if ("errors" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        setting,
        { values: withoutCredentials(form), errors: parsed.errors },
        422,
      );
    // Without a secrets key the saved credentials cannot be opened to keep the untyped ones, and
    // the service would ask for all of them: say what is really missing instead.
    if (parsed.input.credentials && !ctx.config.secretsKey)
      return formPage(ctx, request, reply, setting, { values: withoutCredentials(form), noKey: true }, 503);
    try {
      const saved = await ctx
        .services()
        .gatewaySettings.update(sessionOf(request).merchantId, setting.pg_code, parsed.input);
      auditDone(request);
      return redirectWithFlash(ctx, request, reply, GATEWAYS_BASE, {
        kind: "success",
        text: format(w.saved, { code: isolate(dashboardLanguage(request), saved.pg_code) }),
      });
    } catch (error) {
      return refused(request, reply, setting, form, error);
    }
  });
}
