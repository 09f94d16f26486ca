/** @jsxImportSource preact */
/**
 * API keys: the list (hints only, keys are stored hashed), create, revoke. A new key is shown in
 * the response to the form that created it and never again, so it is not put in a flash.
 * English and Arabic.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { auditDone } from "../../audit/audit.js";
import {
  type DashboardContext,
  formOf,
  pathParam,
  redirectWithFlash,
  render,
  sessionOf,
} from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format } from "../i18n.js";
import { Badge, Field, PAGE_PERMISSIONS, PostForm, SelectField, Time } from "../ui.js";

const WORDS = {
  en: {
    title: "API keys",
    private: "private",
    public: "public",
    new_key: "Your new {kind} key",
    new_key_copy: "new key",
    new_key_hint: "Copy it now: it is stored only as a hash and is not shown again.",
    create: "Create a key",
    kind: "Kind",
    kind_private: "Private (sk_…, server to server)",
    kind_public: "Public (pk_…, the checkout SDK)",
    label: "Label (optional)",
    label_col: "Label",
    create_button: "Create key",
    keys: "Keys",
    keys_of: "Keys of {domain}",
    key: "Key",
    created: "Created",
    status: "Status",
    active: "Active",
    revoked: "Revoked",
    revoke: "Revoke",
    revoke_button: "Revoke…",
    revoke_label: "Revoke {kind} key {hint}",
    confirm_title: "Revoke this key?",
    confirm_what: "Revoke the {kind} key {hint}",
    confirm_effect:
      "Every request made with it fails from now on: {effect}. This cannot be undone; create a new key first if something still uses it.",
    effect_public: "checkouts that load the SDK with it stop working",
    effect_private: "servers that call the API with it get 401",
    confirm_button: "Revoke key {hint}",
    keep: "Cancel, keep it",
    missing: "That key does not exist or is already revoked.",
    done: "The key is revoked: requests with it now fail.",
  },
  ar: {
    title: "مفاتيح API",
    private: "الخاص",
    public: "العام",
    new_key: "مفتاحك {kind} الجديد",
    new_key_copy: "المفتاح الجديد",
    new_key_hint: "انسخه الآن: يُحفظ بصيغة مُجزَّأة (hash) فقط ولن يظهر مرة أخرى.",
    create: "إنشاء مفتاح",
    kind: "النوع",
    kind_private: "خاص (\u2066sk_…\u2069، من خادم إلى خادم)",
    kind_public: "عام (\u2066pk_…\u2069، لحزمة الدفع SDK)",
    label: "التسمية (اختيارية)",
    label_col: "التسمية",
    create_button: "إنشاء المفتاح",
    keys: "المفاتيح",
    keys_of: "مفاتيح {domain}",
    key: "المفتاح",
    created: "تاريخ الإنشاء",
    status: "الحالة",
    active: "فعّال",
    revoked: "ملغى",
    revoke: "الإلغاء",
    revoke_button: "إلغاء…",
    revoke_label: "إلغاء المفتاح {kind} {hint}",
    confirm_title: "إلغاء هذا المفتاح؟",
    confirm_what: "إلغاء المفتاح {kind} {hint}",
    confirm_effect:
      "يفشل كل طلب يستخدمه من الآن: {effect}. لا يمكن التراجع عن ذلك؛ أنشئ مفتاحًا جديدًا أولاً إن كان شيء ما يستخدمه.",
    effect_public: "تتوقف صفحات الدفع التي تحمّل حزمة SDK به",
    effect_private: "تتلقى الخوادم التي تستدعي الواجهة البرمجية به الرمز 401",
    confirm_button: "إلغاء المفتاح {hint}",
    keep: "إلغاء، مع الإبقاء عليه",
    missing: "هذا المفتاح غير موجود أو ملغى من قبل.",
    done: "أُلغي المفتاح: تفشل الطلبات التي تستخدمه الآن.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

const KEY_ID = /^key_[a-z2-7]{1,40}$/;
const wordsOf = (request: FastifyRequest) => WORDS[dashboardLanguage(request)];
const kindOf = (w: (typeof WORDS)["en"], kind: string) => (kind === "public" ? w.public : w.private);

async function keysPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  created?: { kind: string; key: string },
) {
  const session = sessionOf(request);
  const w = wordsOf(request);
  const merchant = await ctx.services().merchants.getMerchant(session.merchantId);
  return render(
    ctx,
    request,
    reply,
    { title: w.title, current: "keys", translated: true },
    <>
      {created && (
        <section class="notice success" role="status" aria-labelledby="new-h">
          <h2 id="new-h">{format(w.new_key, { kind: kindOf(w, created.kind) })}</h2>
          <p>{w.new_key_hint}</p>
          <p class="actions">
            <code class="secret" id="new-key" data-copy={w.new_key_copy} dir="ltr">
              {created.key}
            </code>
          </p>
        </section>
      )}
      <section aria-labelledby="create-h">
        <h2 id="create-h">{w.create}</h2>
        <PostForm action="/dashboard/keys" csrf={session.csrfToken}>
          <div class="filters">
            <SelectField
              name="kind"
              label={w.kind}
              value="private"
              options={[
                { value: "private", text: w.kind_private },
                { value: "public", text: w.kind_public },
              ]}
            />
            <Field name="label" label={w.label} input={{ maxlength: "100" }} />
            <div class="field">
              <button type="submit">{w.create_button}</button>
            </div>
          </div>
        </PostForm>
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">{w.keys}</h2>
        <table class="stack">
          <caption>{format(w.keys_of, { domain: merchant.root_domain })}</caption>
          <thead>
            <tr>
              <th scope="col">{w.key}</th>
              <th scope="col">{w.kind}</th>
              <th scope="col">{w.label_col}</th>
              <th scope="col">{w.created}</th>
              <th scope="col">{w.status}</th>
              <th scope="col">{w.revoke}</th>
            </tr>
          </thead>
          <tbody>
            {merchant.keys.map((k) => (
              <tr>
                <td data-label={w.key}>
                  <code>{k.key_hint}</code>
                </td>
                <td data-label={w.kind}>{kindOf(w, k.kind)}</td>
                <td data-label={w.label_col}>
                  <bdi>{k.label || "—"}</bdi>
                </td>
                <td data-label={w.created}>
                  <Time value={k.created_at} />
                </td>
                <td data-label={w.status}>
                  {k.revoked_at ? (
                    <Badge state="revoked" text={w.revoked} />
                  ) : (
                    <Badge state="active" text={w.active} />
                  )}
                </td>
                <td data-label={w.revoke}>
                  {k.revoked_at ? (
                    <Time value={k.revoked_at} />
                  ) : (
                    <PostForm
                      action={`/dashboard/keys/${k.id}/revoke`}
                      csrf={session.csrfToken}
                      class="inline"
                    >
                      <button
                        type="submit"
                        class="danger"
                        aria-label={`${format(w.revoke_label, { kind: kindOf(w, k.kind), hint: k.key_hint })}${k.label ? ` (${k.label})` : ""}`}
                      >
                        {w.revoke_button}
                      </button>
                    </PostForm>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>,
  );
}

export function keysPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.keys } };

  scope.get("/keys", { config }, async (request, reply) => keysPage(ctx, request, reply));

  scope.post("/keys", { config }, async (request, reply) => {
    const form = formOf(request);
    const kind = form.kind === "public" ? "public" : "private";
    const created = await ctx
      .services()
      .merchants.createKey(sessionOf(request).merchantId, kind, (form.label ?? "").trim().slice(0, 100));
    auditDone(request);
    return keysPage(ctx, request, reply, created);
  });

  scope.post("/keys/:key_id/revoke", { config }, async (request, reply) => {
    const keyId = pathParam(request, "key_id");
    const session = sessionOf(request);
    const w = wordsOf(request);
    // Revoking breaks every integration that uses the key: only after a confirmation.
    if (formOf(request).confirm !== "yes") {
      const merchant = await ctx.services().merchants.getMerchant(session.merchantId);
      const key = merchant.keys.find((k) => k.id === keyId && !k.revoked_at);
      if (!key)
        return redirectWithFlash(ctx, request, reply, "/dashboard/keys", { kind: "error", text: w.missing });
      const kind = kindOf(w, key.kind);
      return render(
        ctx,
        request,
        reply,
        { title: w.confirm_title, current: "keys", translated: true },
        <>
          <div class="notice" role="status">
            <p class="lead">
              <strong>{format(w.confirm_what, { kind, hint: key.key_hint })}</strong>
              {key.label ? ` (${key.label})` : ""}.
            </p>
            <p>
              {format(w.confirm_effect, {
                effect: key.kind === "public" ? w.effect_public : w.effect_private,
              })}
            </p>
          </div>
          <PostForm action={`/dashboard/keys/${key.id}/revoke`} csrf={session.csrfToken}>
            <input type="hidden" name="confirm" value="yes" />
            <p class="actions">
              <button type="submit" class="danger">
                {format(w.confirm_button, { hint: key.key_hint })}
              </button>{" "}
              <a href="/dashboard/keys">{w.keep}</a>
            </p>
          </PostForm>
        </>,
      );
    }
    await ctx
      .services()
      .merchants.revokeKey(sessionOf(request).merchantId, KEY_ID.test(keyId) ? keyId : "key_none");
    auditDone(request);
    return redirectWithFlash(ctx, request, reply, "/dashboard/keys", { kind: "success", text: w.done });
  });
}
