/**
 * What a customer's browser does on KNET's payment page, in plain HTTP: open the payment
 * initialisation URL svc gave, follow KNET to its payment page, read the page's form (its
 * action, its controls by their labels, its buttons), fill it as a customer would with the test
 * card, submit it, and report where KNET sends the browser next. Redirects are followed by hand
 * so the last one is seen; pages outside KNET's `/kpg/` (the merchant's receipt) are not loaded.
 */

import type { KnetStandInTerminal } from "../../packages/service/src/gateways/knet/standin/types.js";
import { api, bearer, type ServiceUrl } from "./merchant.js";

/**
 * Saves a KNET gateway setting `pgCode` for merchant `merchantId` with a stand-in terminal's
 * credentials, pointed at the stand-in (`url`); answers the operator API's response.
 */
export function saveKnetSetting(
  stack: ServiceUrl,
  merchantId: string,
  pgCode: string,
  terminal: KnetStandInTerminal,
  url: string,
) {
  return api(stack, "POST", `/v1/admin/merchants/${merchantId}/gateways`, {
    auth: bearer,
    body: {
      pg_code: pgCode,
      kind: "knet",
      currencies: ["KWD"],
      api_base_url: url,
      credentials: {
        tranportal_id: terminal.tranportalId,
        tranportal_password: terminal.password,
        resource_key: terminal.resourceKey,
      },
    },
  });
}

/** The test card's number as a customer types it: its prefix, then the rest. */
export const KNET_TEST_CARD = "8888880000000001";
/** Any 4 digits do on KNET's test host (manual section 4). */
const TEST_PIN = "1234";
/** Redirects followed between KNET's own pages before giving up. */
const MAX_KNET_HOPS = 5;

export type KnetChoice =
  { expiry: "09/2021" | string; bank?: string; card?: string; pin?: string } | "cancel";

export interface KnetBrowserResult {
  status: number;
  /** Where KNET sends the browser (the merchant's REDIRECT url, or the errorURL). */
  location?: string;
  body: string;
}

type Language = "en" | "ar";
type Role = "bank" | "prefix" | "number" | "month" | "year" | "pin";

/** The labels a customer reads, per page language; prefix before number (its label contains it). */
const LABELS: Record<Language, Record<Role | "submit" | "cancel", RegExp>> = {
  en: {
    prefix: /prefix/i,
    number: /card number/i,
    bank: /\bbank\b/i,
    month: /month/i,
    year: /year/i,
    pin: /\bPIN\b/,
    submit: /^submit$/i,
    cancel: /^cancel$/i,
  },
  ar: {
    prefix: /بادئة/,
    number: /رقم البطاقة/,
    bank: /البنك/,
    month: /شهر/,
    year: /سنة/,
    pin: /الرقم السري/,
    submit: /إرسال/,
    cancel: /إلغاء/,
  },
};

interface Control {
  tag: "input" | "select";
  name: string;
  id?: string;
  type: string;
  value: string;
  options: { value: string; text: string }[];
}

interface PageForm {
  action: string;
  method: string;
  controls: Control[];
  labels: Map<string, string>;
  buttons: { name?: string; value: string; text: string }[];
}

const decode = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
const attr = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag);
  return match ? decode(match[1]!) : undefined;
};
const textOf = (html: string) => decode(html.replace(/<[^>]+>/g, "")).trim();

function readForm(html: string): PageForm {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error("KNET's page has no form");
  const [, attrs = "", inner = ""] = form;
  const controls: Control[] = [];
  for (const [tag] of inner.matchAll(/<input\b[^>]*>/gi)) {
    const name = attr(tag, "name");
    if (name)
      controls.push({
        tag: "input",
        name,
        id: attr(tag, "id"),
        type: attr(tag, "type") ?? "text",
        value: attr(tag, "value") ?? "",
        options: [],
      });
  }
  for (const [, tag = "", body = ""] of inner.matchAll(/(<select\b[^>]*>)([\s\S]*?)<\/select>/gi)) {
    const options = [...body.matchAll(/<option\b([^>]*)>([\s\S]*?)<\/option>/gi)].map(
      ([, a = "", t = ""]) => ({
        value: attr(`<option ${a}>`, "value") ?? textOf(t),
        text: textOf(t),
      }),
    );
    controls.push({
      tag: "select",
      name: attr(tag, "name") ?? "",
      id: attr(tag, "id"),
      type: "select",
      value: "",
      options,
    });
  }
  const labels = new Map<string, string>();
  for (const [, a = "", t = ""] of inner.matchAll(/<label\b([^>]*)>([\s\S]*?)<\/label>/gi)) {
    const target = attr(`<label ${a}>`, "for");
    if (target) labels.set(target, textOf(t));
  }
  const buttons = [...inner.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)].map(
    ([, a = "", t = ""]) => ({
      name: attr(`<button ${a}>`, "name"),
      value: attr(`<button ${a}>`, "value") ?? "",
      text: textOf(t),
    }),
  );
  return {
    action: attr(`<form ${attrs}>`, "action") ?? "",
    method: (attr(`<form ${attrs}>`, "method") ?? "get").toUpperCase(),
    controls,
    labels,
    buttons,
  };
}

/** The page's controls by what their labels say. */
function controlsByRole(form: PageForm, language: Language): Record<Role, Control> {
  const found: Partial<Record<Role, Control>> = {};
  const taken = new Set<Control>();
  for (const role of ["prefix", "number", "bank", "month", "year", "pin"] as const) {
    const control = form.controls.find(
      (c) => !taken.has(c) && c.id !== undefined && LABELS[language][role].test(form.labels.get(c.id) ?? ""),
    );
    if (!control) throw new Error(`KNET's page has no control labelled for ${role}`);
    found[role] = control;
    taken.add(control);
  }
  return found as Record<Role, Control>;
}

function choose(
  control: Control,
  pick: (o: { value: string; text: string }) => boolean,
  what: string,
): string {
  const option = control.options.find(pick);
  if (!option) throw new Error(`KNET's ${control.name} list offers no ${what}`);
  return option.value;
}

/** The form's fields after the customer filled it (or pressed Cancel). */
function fill(form: PageForm, choice: KnetChoice, language: Language): URLSearchParams {
  const fields = new URLSearchParams();
  for (const c of form.controls) if (c.type === "hidden") fields.set(c.name, c.value);
  const button = form.buttons.find((b) =>
    LABELS[language][choice === "cancel" ? "cancel" : "submit"].test(b.text),
  );
  if (!button) throw new Error(`KNET's page has no ${choice === "cancel" ? "Cancel" : "Submit"} button`);
  if (choice !== "cancel") {
    const roles = controlsByRole(form, language);
    const [month = "", year = ""] = choice.expiry.split("/");
    const card = choice.card ?? KNET_TEST_CARD;
    const bank = choice.bank ?? "KNET1";
    fields.set(
      roles.bank.name,
      choose(roles.bank, (o) => o.text.includes(`[${bank}]`), bank),
    );
    const prefix = choose(
      roles.prefix,
      (o) => o.value !== "" && card.startsWith(o.value),
      `prefix of ${card}`,
    );
    fields.set(roles.prefix.name, prefix);
    fields.set(roles.number.name, card.slice(prefix.length));
    fields.set(
      roles.month.name,
      choose(roles.month, (o) => o.value === month, `month ${month}`),
    );
    fields.set(
      roles.year.name,
      choose(roles.year, (o) => o.value === year, `year ${year}`),
    );
    fields.set(roles.pin.name, choice.pin ?? TEST_PIN);
  }
  if (button.name) fields.set(button.name, button.value);
  return fields;
}

const isRedirect = (status: number) => status >= 300 && status < 400;

/**
 * Pays (or cancels) on KNET's page from the payment-initialisation URL svc redirected to.
 * Returns KNET's last answer: a 302 to the merchant's receipt or errorURL, or the page KNET
 * showed instead (an error page, the page again with an error, a plain page).
 *
 * @example
 * const { status, location } = await payOnKnet(payment.redirect_url, { expiry: "09/2021" });
 * // 302, "https://svc.example/pay/sess_x/return"
 * await payOnKnet(payment.redirect_url, "cancel", { language: "ar" });
 */
export async function payOnKnet(
  paymentPageUrl: string,
  choice: KnetChoice,
  options: { language?: Language } = {},
): Promise<KnetBrowserResult> {
  let url = new URL(paymentPageUrl);
  const knetOrigin = url.origin;
  let response = await fetch(url, { redirect: "manual" });
  for (let hop = 0; isRedirect(response.status); hop++) {
    const next = new URL(response.headers.get("location") ?? "", url);
    if (next.origin !== knetOrigin || !next.pathname.startsWith("/kpg/") || hop >= MAX_KNET_HOPS)
      return { status: response.status, location: next.toString(), body: await response.text() };
    url = next;
    response = await fetch(url, { redirect: "manual" });
  }
  const html = await response.text();
  if (response.status !== 200 || !/<form\b/i.test(html)) return { status: response.status, body: html };
  const language = options.language ?? (/<html[^>]*\blang="ar"/i.test(html) ? "ar" : "en");
  const form = readForm(html);
  const answer = await fetch(new URL(form.action, url), {
    method: form.method,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fill(form, choice, language).toString(),
    redirect: "manual",
  });
  const location = answer.headers.get("location");
  return {
    status: answer.status,
    ...(location ? { location: new URL(location, url).toString() } : {}),
    body: await answer.text(),
  };
}
