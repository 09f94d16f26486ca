/**
 * The dashboard's HTML building blocks: the page layout (skip link, navigation showing only the
 * pages the user may open, sign-out), escaping, and labelled form fields with their errors.
 * Everything is server-rendered; the stylesheet and the small enhancement script are separate
 * files so the CSP can forbid inline code entirely.
 */
import type { Permission } from "@svc/protocol";
import { esc } from "../checkout/hosted-page.html.js";
import type { AuthUser } from "../http/auth.js";
import { CSRF_FIELD } from "./csrf.js";
import type { Flash } from "./session.js";

export { esc };

/** Which permission opens each page; one place, so the nav and the routes cannot disagree. */
export const PAGE_PERMISSIONS = {
  overview: "payment.view",
  payments: "payment.view",
  discrepancies: "payment.view",
  paymentRequest: "payment.create",
  webhooks: "webhooks.manage",
  deliveries: "webhooks.manage",
  sdk: "webhooks.manage",
  keys: "webhooks.manage",
  audit: "webhooks.manage",
} as const satisfies Record<string, Permission>;

type NavKey = keyof typeof PAGE_PERMISSIONS;

const NAV: { key: NavKey; href: string; text: string }[] = [
  { key: "overview", href: "/dashboard/overview", text: "Overview" },
  { key: "payments", href: "/dashboard/payments", text: "Payments" },
  { key: "paymentRequest", href: "/dashboard/payments/new", text: "New payment request" },
  { key: "discrepancies", href: "/dashboard/discrepancies", text: "Discrepancies" },
  { key: "webhooks", href: "/dashboard/webhooks", text: "Webhooks" },
  { key: "deliveries", href: "/dashboard/deliveries", text: "Delivery log" },
  { key: "sdk", href: "/dashboard/sdk", text: "SDK" },
  { key: "keys", href: "/dashboard/keys", text: "API keys" },
  { key: "audit", href: "/dashboard/audit", text: "Audit log" },
];

export function can(user: AuthUser, permission: Permission): boolean {
  return user.permissions.includes(permission);
}

export interface PageFrame {
  title: string;
  user?: AuthUser | undefined;
  csrf?: string | undefined;
  current?: NavKey | undefined;
  flash?: Flash | null | undefined;
}

export function csrfInput(token: string | undefined): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${esc(token)}">`;
}

export function flashBox(flash: Flash | null | undefined): string {
  if (!flash) return "";
  const role = flash.kind === "error" ? "alert" : "status";
  return `<div class="notice ${flash.kind}" role="${role}">${esc(flash.text)}</div>`;
}

export function layout(frame: PageFrame, body: string): string {
  const { user } = frame;
  const nav = user
    ? `<nav aria-label="Dashboard"><ul>${NAV.filter((n) => can(user, PAGE_PERMISSIONS[n.key]))
        .map(
          (n) =>
            `<li><a href="${n.href}"${n.key === frame.current ? ' aria-current="page"' : ""}>${esc(n.text)}</a></li>`,
        )
        .join("")}</ul></nav>
<form method="post" action="/dashboard/sign-out" class="sign-out">${csrfInput(frame.csrf)}<span>Signed in as <strong>${esc(user.username)}</strong></span> <button type="submit" class="secondary">Sign out</button></form>`
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${esc(frame.title)} · svc dashboard</title><link rel="stylesheet" href="/dashboard/assets/dashboard.css"><script src="/dashboard/assets/dashboard.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a><header class="top"><p class="brand"><a href="/dashboard">svc dashboard</a></p>${nav}</header>
<main id="main" tabindex="-1"><h1>${esc(frame.title)}</h1>${flashBox(frame.flash)}${body}</main></body></html>`;
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | undefined;
  type?: string;
  hint?: string;
  error?: string | undefined;
  attrs?: string;
}

export function field(o: FieldOptions): string {
  const id = `f-${o.name}`;
  const described = [o.hint ? `${id}-hint` : "", o.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return `<div class="field"><label for="${id}">${esc(o.label)}</label>${o.hint ? `<p class="hint" id="${id}-hint">${esc(o.hint)}</p>` : ""}<input type="${o.type ?? "text"}" id="${id}" name="${esc(o.name)}" value="${esc(o.value)}"${o.attrs ? ` ${o.attrs}` : ""}${described ? ` aria-describedby="${described}"` : ""}${o.error ? ' aria-invalid="true"' : ""}>${o.error ? `<p class="field-error" id="${id}-error">${esc(o.error)}</p>` : ""}</div>`;
}

export function selectField(o: {
  name: string;
  label: string;
  value?: string | undefined;
  options: { value: string; text: string }[];
  error?: string | undefined;
}): string {
  const id = `f-${o.name}`;
  return `<div class="field"><label for="${id}">${esc(o.label)}</label><select id="${id}" name="${esc(o.name)}"${o.error ? ` aria-invalid="true" aria-describedby="${id}-error"` : ""}>${o.options
    .map(
      (opt) =>
        `<option value="${esc(opt.value)}"${opt.value === (o.value ?? "") ? " selected" : ""}>${esc(opt.text)}</option>`,
    )
    .join("")}</select>${o.error ? `<p class="field-error" id="${id}-error">${esc(o.error)}</p>` : ""}</div>`;
}

export function checkbox(o: { name: string; label: string; checked: boolean; hint?: string }): string {
  const id = `f-${o.name}`;
  return `<div class="check"><input type="checkbox" id="${id}" name="${esc(o.name)}" value="on"${o.checked ? " checked" : ""}${o.hint ? ` aria-describedby="${id}-hint"` : ""}><label for="${id}">${esc(o.label)}</label>${o.hint ? `<p class="hint" id="${id}-hint">${esc(o.hint)}</p>` : ""}</div>`;
}

/** An error summary at the top of a form, announced by screen readers and listing each problem. */
export function errorSummary(messages: string[], heading = "There is a problem"): string {
  if (messages.length === 0) return "";
  return `<div class="notice error" role="alert"><h2>${esc(heading)}</h2><ul>${messages.map((m) => `<li>${esc(m)}</li>`).join("")}</ul></div>`;
}

export function postForm(action: string, csrf: string | undefined, inner: string, extraClass = ""): string {
  return `<form method="post" action="${esc(action)}"${extraClass ? ` class="${extraClass}"` : ""}>${csrfInput(csrf)}${inner}</form>`;
}

export function time(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const d = typeof value === "string" ? new Date(value) : value;
  const text = `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return `<time datetime="${d.toISOString()}">${text}</time>`;
}

/** A state as a badge; the word itself carries the meaning, colour only repeats it. `text`: a label for it. */
export function badge(state: string, text?: string): string {
  const tone = /rejected|failed|failing|disabled|declined|canceled|expired|dead/.test(state)
    ? "bad"
    : /queued|pending|attempted|created|authorized|retrying/.test(state)
      ? "wait"
      : "good";
  return text
    ? `<span class="badge ${tone}" title="${esc(state)}">${esc(text)}</span>`
    : `<span class="badge ${tone}">${esc(state.replace(/_/g, " "))}</span>`;
}

/** Builds a query string from the non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : "";
}
