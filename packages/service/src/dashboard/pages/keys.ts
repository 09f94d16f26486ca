/**
 * API keys: the list (hints only, keys are stored hashed), create, revoke. A new key is shown in
 * the response to the form that created it and never again, so it is not put in a flash.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type DashboardContext,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import { badge, esc, field, PAGE_PERMISSIONS, postForm, selectField, time } from "../html.js";

const KEY_ID = /^key_[a-z2-7]{1,40}$/;

async function keysPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  created?: { kind: string; key: string },
) {
  const session = sessionOf(request);
  const merchant = await ctx.services().merchants.getMerchant(session.merchantId);
  const shown = created
    ? `<section class="notice success" role="status" aria-labelledby="new-h"><h2 id="new-h">Your new ${esc(created.kind)} key</h2><p>Copy it now: it is stored only as a hash and is not shown again.</p><p class="actions"><code class="secret" id="new-key" data-copy="new key">${esc(created.key)}</code></p></section>`
    : "";
  const rows = merchant.keys
    .map(
      (
        k,
      ) => `<tr><td data-label="Key"><code>${esc(k.key_hint)}</code></td><td data-label="Kind">${esc(k.kind)}</td><td data-label="Label">${esc(k.label || "—")}</td><td data-label="Created">${time(k.created_at)}</td><td data-label="Status">${k.revoked_at ? badge("revoked") : badge("active")}</td>
<td data-label="Revoke">${k.revoked_at ? time(k.revoked_at) : postForm(`/dashboard/keys/${k.id}/revoke`, session.csrfToken, `<button type="submit" class="danger" aria-label="Revoke ${esc(k.kind)} key ${esc(k.key_hint)}${k.label ? ` (${esc(k.label)})` : ""}">Revoke…</button>`, "inline")}</td></tr>`,
    )
    .join("");
  const form = postForm(
    "/dashboard/keys",
    session.csrfToken,
    `<div class="filters">${selectField({
      name: "kind",
      label: "Kind",
      value: "private",
      options: [
        { value: "private", text: "Private (sk_…, server to server)" },
        { value: "public", text: "Public (pk_…, the checkout SDK)" },
      ],
    })}${field({ name: "label", label: "Label (optional)", input: { maxlength: "100" } })}<div class="field"><button type="submit">Create key</button></div></div>`,
  );
  return render(
    ctx,
    request,
    reply,
    { title: "API keys", current: "keys" },
    `${shown}<section aria-labelledby="create-h"><h2 id="create-h">Create a key</h2>${form}</section>
<section aria-labelledby="keys-h"><h2 id="keys-h">Keys</h2><table class="stack"><caption>Keys of ${esc(merchant.root_domain)}</caption><thead><tr><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Revoke</th></tr></thead><tbody>${rows}</tbody></table></section>`,
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
    return keysPage(ctx, request, reply, created);
  });

  scope.post("/keys/:key_id/revoke", { config }, async (request, reply) => {
    const keyId = pathParam(request, "key_id");
    const session = sessionOf(request);
    // Revoking breaks every integration that uses the key: only after a confirmation.
    if (formOf(request).confirm !== "yes") {
      const merchant = await ctx.services().merchants.getMerchant(session.merchantId);
      const key = merchant.keys.find((k) => k.id === keyId && !k.revoked_at);
      if (!key)
        return redirectWithFlash(ctx, request, reply, "/dashboard/keys", {
          kind: "error",
          text: "That key does not exist or is already revoked.",
        });
      return render(
        ctx,
        request,
        reply,
        { title: "Revoke this key?", current: "keys" },
        `<div class="notice" role="status"><p class="lead"><strong>Revoke the ${esc(key.kind)} key ${esc(key.key_hint)}</strong>${key.label ? ` (${esc(key.label)})` : ""}.</p><p>Every request made with it fails from now on: ${key.kind === "public" ? "checkouts that load the SDK with it stop working" : "servers that call the API with it get 401"}. This cannot be undone; create a new key first if something still uses it.</p></div>
${postForm(`/dashboard/keys/${key.id}/revoke`, session.csrfToken, `<input type="hidden" name="confirm" value="yes"><p class="actions"><button type="submit" class="danger">Revoke key ${esc(key.key_hint)}</button> <a href="/dashboard/keys">Cancel, keep it</a></p>`)}`,
      );
    }
    await ctx
      .services()
      .merchants.revokeKey(sessionOf(request).merchantId, KEY_ID.test(keyId) ? keyId : "key_none");
    return redirectWithFlash(ctx, request, reply, "/dashboard/keys", {
      kind: "success",
      text: "The key is revoked: requests with it now fail.",
    });
  });
}
