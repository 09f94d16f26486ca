/**
 * The dashboard's HTML building blocks as strings, for pages still built as template strings:
 * the layout and the form parts are the components of ui.tsx (escaped by the renderer); `esc` is
 * for what such a page writes itself. Everything is server-rendered; the stylesheet and the small
 * enhancement script are separate files so the CSP can forbid inline code entirely.
 */
import { h } from "preact";
import { esc } from "../checkout/hosted-page.html.js";
import { renderDocument, renderFragment, TrustedHtml, type VNode } from "../pages/jsx.js";
import type { Flash } from "./session.js";
import {
  Badge,
  Checkbox,
  CsrfInput,
  ErrorSummary,
  Field,
  type FieldProps,
  FlashBox,
  Layout,
  type PageFrame,
  PostForm,
  SelectField,
  Time,
} from "./ui.js";

export { esc };

export { can, PAGE_PERMISSIONS, type PageFrame } from "./ui.js";

/*
 * The string helpers below are the components of ui.tsx rendered on their own, for pages not yet
 * written as components: what they put in a page is escaped by the renderer either way.
 */

export function csrfInput(token: string | undefined): string {
  return renderFragment(h(CsrfInput, { token }));
}

export function flashBox(flash: Flash | null | undefined): string {
  return flash ? renderFragment(h(FlashBox, { flash })) : "";
}

/** A page in the layout; `body` is markup the page built (escaped), or a component tree. */
export function layout<P>(frame: PageFrame, body: string | VNode<P>): string {
  return renderDocument(
    h(Layout, { frame }, typeof body === "string" ? h(TrustedHtml, { html: body }) : body),
  );
}

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | undefined;
  type?: string;
  hint?: string;
  error?: string | undefined;
  /** Further attributes of the input, e.g. `{ autocomplete: "off", required: true }`. */
  input?: FieldProps["input"];
}

export function field(o: FieldOptions): string {
  return renderFragment(h(Field, o));
}

export function selectField(o: Parameters<typeof SelectField>[0]): string {
  return renderFragment(h(SelectField, o));
}

export function checkbox(o: Parameters<typeof Checkbox>[0]): string {
  return renderFragment(h(Checkbox, o));
}

/** An error summary at the top of a form, announced by screen readers and listing each problem. */
export function errorSummary(messages: string[], heading = "There is a problem"): string {
  return messages.length === 0 ? "" : renderFragment(h(ErrorSummary, { messages, heading }));
}

/** A form posting to `action` with the CSRF token; `inner` is markup the page built (escaped). */
export function postForm(action: string, csrf: string | undefined, inner: string, extraClass = ""): string {
  return renderFragment(h(PostForm, { action, csrf, class: extraClass }, h(TrustedHtml, { html: inner })));
}

export function time(value: Date | string | null | undefined): string {
  return value ? renderFragment(h(Time, { value })) : "—";
}

/** A state as a badge; the word itself carries the meaning, colour only repeats it. `text`: a label for it. */
export function badge(state: string, text?: string): string {
  return renderFragment(h(Badge, { state, text }));
}

/** Builds a query string from the non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : "";
}
