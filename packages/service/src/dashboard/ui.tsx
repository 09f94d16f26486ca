/** @jsxImportSource preact */
/**
 * The dashboard's components: the page layout (skip link, navigation showing only the pages the
 * user may open, language switch, sign-out) and the form and table parts every page uses. They
 * render through preact-render-to-string (pages/jsx.tsx), which escapes every value: no `esc()`.
 */
import type { Permission } from "@svc/protocol";
import type { AuthUser } from "../http/auth.js";
import type { ComponentChildren, VNode } from "../pages/jsx.js";
import { CSRF_FIELD } from "./csrf.js";
import { type DashboardLanguage, type MessageKey, messages } from "./i18n.js";
import type { Flash } from "./session.js";

/** Which permission opens each page; one place, so the nav and the routes cannot disagree. */
export const PAGE_PERMISSIONS = {
  overview: "payment.view",
  payments: "payment.view",
  discrepancies: "payment.view",
  gateways: "gateways.manage",
  paymentRequest: "payment.create",
  webhooks: "webhooks.manage",
  deliveries: "webhooks.manage",
  sdk: "webhooks.manage",
  keys: "webhooks.manage",
  audit: "webhooks.manage",
} as const satisfies Record<string, Permission>;

export type NavKey = keyof typeof PAGE_PERMISSIONS;

const NAV: { key: NavKey; href: string; text: MessageKey }[] = [
  { key: "overview", href: "/dashboard/overview", text: "nav_overview" },
  { key: "payments", href: "/dashboard/payments", text: "nav_payments" },
  { key: "paymentRequest", href: "/dashboard/payments/new", text: "nav_payment_request" },
  { key: "discrepancies", href: "/dashboard/discrepancies", text: "nav_discrepancies" },
  { key: "gateways", href: "/dashboard/gateways", text: "nav_gateways" },
  { key: "webhooks", href: "/dashboard/webhooks", text: "nav_webhooks" },
  { key: "deliveries", href: "/dashboard/deliveries", text: "nav_deliveries" },
  { key: "sdk", href: "/dashboard/sdk", text: "nav_sdk" },
  { key: "keys", href: "/dashboard/keys", text: "nav_keys" },
  { key: "audit", href: "/dashboard/audit", text: "nav_audit" },
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
  /** The page's language (default English) and the link to the same page in the other one. */
  lang?: DashboardLanguage | undefined;
  switchHref?: string | undefined;
  /**
   * The page's own words come from the catalogues (i18n.ts). A page not yet translated keeps its
   * English content, marked `lang="en"` inside the Arabic layout, so a screen reader reads it as
   * English and it stays left to right.
   */
  translated?: boolean | undefined;
}

export function CsrfInput({ token }: { token: string | undefined }): VNode {
  return <input type="hidden" name={CSRF_FIELD} value={token ?? ""} />;
}

/**
 * What the last action did, shown once on the page it led to. The page's script moves the focus
 * to it (DASHBOARD_JS), so a screen reader reads it (a live region present when the page loads is
 * not announced) and the keyboard goes on from there rather than from the top of the page.
 */
export function FlashBox({ flash }: { flash: Flash | null | undefined }): VNode | null {
  if (!flash) return null;
  return (
    <div
      class={`notice ${flash.kind}`}
      role={flash.kind === "error" ? "alert" : "status"}
      tabIndex={-1}
      data-flash
    >
      {flash.text}
    </div>
  );
}

export function Layout({ frame, children }: { frame: PageFrame; children?: ComponentChildren }): VNode {
  const { user } = frame;
  const lang = frame.lang ?? "en";
  const t = messages(lang);
  const other = lang === "ar" ? "en" : "ar";
  return (
    <html lang={lang} dir={lang === "ar" ? "rtl" : "ltr"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${frame.title} · ${t.title_suffix}`}</title>
        <link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer />
      </head>
      <body data-copy-word={t.copy} data-copied-word={t.copied}>
        <a class="skip" href="#main">
          {t.skip}
        </a>
        <header class="top">
          <p class="brand">
            <a href="/dashboard">{t.brand}</a>
          </p>
          {user && (
            <nav aria-label={t.nav_label}>
              <ul>
                {NAV.filter((n) => can(user, PAGE_PERMISSIONS[n.key])).map((n) => (
                  <li>
                    <a href={n.href} aria-current={n.key === frame.current ? "page" : undefined}>
                      {t[n.text]}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <div class="account">
            <p class="lang-switch">
              <a href={frame.switchHref ?? `?lang=${other}`} lang={other} hreflang={other}>
                {t.language_switch}
              </a>
            </p>
            {user && (
              <form method="post" action="/dashboard/sign-out" class="sign-out">
                <CsrfInput token={frame.csrf} />
                <span>
                  {t.signed_in_as} <strong dir="ltr">{user.username}</strong>
                </span>{" "}
                <button type="submit" class="secondary">
                  {t.sign_out}
                </button>
              </form>
            )}
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {lang === "en" || frame.translated ? (
            <>
              <h1>{frame.title}</h1>
              <FlashBox flash={frame.flash} />
              {children}
            </>
          ) : (
            <div lang="en" dir="ltr">
              <h1>{frame.title}</h1>
              <FlashBox flash={frame.flash} />
              {children}
            </div>
          )}
        </main>
      </body>
    </html>
  );
}

export interface FieldProps {
  name: string;
  /** The input's id (default `f-<name>`), for two fields of one name on a page. */
  id?: string | undefined;
  label: string;
  value?: string | undefined;
  type?: string;
  hint?: string | undefined;
  error?: string | undefined;
  /** "en" when the error is the service's English on a page in another language. */
  errorLang?: "en" | undefined;
  /** Further attributes of the input (autocomplete, required, inputmode, class…). */
  input?: Record<string, string | boolean | undefined>;
}

export function Field(o: FieldProps): VNode {
  const id = o.id ?? `f-${o.name}`;
  const described = [o.hint ? `${id}-hint` : "", o.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class="field">
      <label for={id}>{o.label}</label>
      {o.hint && (
        <p class="hint" id={`${id}-hint`}>
          {o.hint}
        </p>
      )}
      <input
        type={o.type ?? "text"}
        id={id}
        name={o.name}
        value={o.value ?? ""}
        {...o.input}
        aria-describedby={described || undefined}
        aria-invalid={o.error ? "true" : undefined}
      />
      <FieldError id={`${id}-error`} error={o.error} lang={o.errorLang} />
    </div>
  );
}

/** A field's error under it; marked as English (left to right) when it is the service's English. */
export function FieldError(o: {
  id: string;
  error: string | undefined;
  lang?: "en" | undefined;
}): VNode | null {
  if (!o.error) return null;
  return (
    <p class="field-error" id={o.id} lang={o.lang} dir={o.lang ? "ltr" : undefined}>
      {o.error}
    </p>
  );
}

export function SelectField(o: {
  name: string;
  label: string;
  value?: string | undefined;
  options: { value: string; text: string }[];
  hint?: string | undefined;
  error?: string | undefined;
  errorLang?: "en" | undefined;
  /** Further attributes of the select (data-* for the page's script…). */
  select?: Record<string, string | boolean | undefined>;
}): VNode {
  const id = `f-${o.name}`;
  const described = [o.hint ? `${id}-hint` : "", o.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class="field">
      <label for={id}>{o.label}</label>
      {o.hint && (
        <p class="hint" id={`${id}-hint`}>
          {o.hint}
        </p>
      )}
      <select
        id={id}
        name={o.name}
        {...o.select}
        aria-invalid={o.error ? "true" : undefined}
        aria-describedby={described || undefined}
      >
        {o.options.map((opt) => (
          <option value={opt.value} selected={opt.value === (o.value ?? "")}>
            {opt.text}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} error={o.error} lang={o.errorLang} />
    </div>
  );
}

/** One choice of several as radio buttons in a fieldset, its legend the question. */
export function RadioGroup(o: {
  name: string;
  legend: string;
  value?: string | undefined;
  options: { value: string; text: string; hint?: string | undefined }[];
  hint?: string | undefined;
  error?: string | undefined;
  errorLang?: "en" | undefined;
  /** The group's id (default `f-<name>`): its error is `<id>-error`, each option `<id>-<value>`. */
  id?: string | undefined;
  required?: boolean | undefined;
}): VNode {
  const id = o.id ?? `f-${o.name}`;
  const described = [o.hint ? `${id}-hint` : "", o.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <fieldset
      class="choices"
      id={id}
      aria-describedby={described || undefined}
      aria-invalid={o.error ? "true" : undefined}
    >
      <legend>{o.legend}</legend>
      {o.hint && (
        <p class="hint" id={`${id}-hint`}>
          {o.hint}
        </p>
      )}
      {o.options.map((opt) => (
        <div class="check">
          <input
            type="radio"
            id={`${id}-${opt.value}`}
            name={o.name}
            value={opt.value}
            checked={opt.value === o.value}
            required={o.required || undefined}
            aria-describedby={opt.hint ? `${id}-${opt.value}-hint` : undefined}
          />
          <label for={`${id}-${opt.value}`}>{opt.text}</label>
          {opt.hint && (
            <p class="hint" id={`${id}-${opt.value}-hint`}>
              {opt.hint}
            </p>
          )}
        </div>
      ))}
      <FieldError id={`${id}-error`} error={o.error} lang={o.errorLang} />
    </fieldset>
  );
}

export function Checkbox(o: {
  name: string;
  label: string;
  checked: boolean;
  hint?: string | undefined;
}): VNode {
  const id = `f-${o.name}`;
  return (
    <div class="check">
      <input
        type="checkbox"
        id={id}
        name={o.name}
        value="on"
        checked={o.checked}
        aria-describedby={o.hint ? `${id}-hint` : undefined}
      />
      <label for={id}>{o.label}</label>
      {o.hint && (
        <p class="hint" id={`${id}-hint`}>
          {o.hint}
        </p>
      )}
    </div>
  );
}

/**
 * An error summary at the top of a form, announced by screen readers and listing each problem.
 * The dashboard's script moves the focus to it when the page loads, so a keyboard or screen
 * reader user who sent the form starts at the list of what to fix (not at the top of the page).
 */
export function ErrorSummary({
  messages: list,
  heading,
  messagesLang,
}: {
  messages: string[];
  heading: string;
  /** "en" when the messages are the service's English on a page in another language (the heading is the page's). */
  messagesLang?: "en" | undefined;
}): VNode | null {
  if (list.length === 0) return null;
  return (
    <div class="notice error" role="alert" tabIndex={-1} data-error-summary>
      <h2>{heading}</h2>
      <ul lang={messagesLang} dir={messagesLang ? "ltr" : undefined}>
        {list.map((m) => (
          <li>{m}</li>
        ))}
      </ul>
    </div>
  );
}

export function PostForm(o: {
  action: string;
  csrf: string | undefined;
  class?: string;
  children?: ComponentChildren;
}): VNode {
  return (
    <form method="post" action={o.action} class={o.class || undefined}>
      <CsrfInput token={o.csrf} />
      {o.children}
    </form>
  );
}

/** A time in UTC, machine-readable in `datetime`; digits stay left to right in Arabic. */
export function Time({ value }: { value: Date | string | null | undefined }): VNode | string {
  if (!value) return "—";
  const d = typeof value === "string" ? new Date(value) : value;
  return (
    <time datetime={d.toISOString()} dir="ltr">
      {`${d.toISOString().slice(0, 19).replace("T", " ")} UTC`}
    </time>
  );
}

/** An element's text that reads left to right in either direction: amounts, dates, codes. */
export function Ltr({ children }: { children: string | number }): VNode {
  return <bdi dir="ltr">{children}</bdi>;
}

/** The tone of a state: the word carries the meaning, colour only repeats it. */
export function toneOf(state: string): "good" | "bad" | "wait" {
  return /rejected|failed|failing|disabled|declined|canceled|expired|dead/.test(state)
    ? "bad"
    : /queued|pending|attempted|created|authorized|retrying/.test(state)
      ? "wait"
      : "good";
}

/**
 * A state as a badge; `text` is its label (else the state with spaces). The code is in
 * `data-state` for scripts, not in a tooltip: a raw English code there meant nothing to staff,
 * and on an Arabic page it was the one English word.
 */
export function Badge({ state, text }: { state: string; text?: string | undefined }): VNode {
  return text ? (
    <span class={`badge ${toneOf(state)}`} data-state={state}>
      {text}
    </span>
  ) : (
    <span class={`badge ${toneOf(state)}`}>{state.replace(/_/g, " ")}</span>
  );
}
