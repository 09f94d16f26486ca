/**
 * What dashboard code outside the components needs: the page as a string (the layout of ui.tsx
 * rendered around a body, escaped by the renderer) and query strings. Every page is a component
 * (pages/*.tsx); nothing here writes markup by hand. Everything is server-rendered; the stylesheet
 * and the small enhancement script are separate files so the CSP can forbid inline code entirely.
 */
import { h } from "preact";
import { renderDocument, type VNode } from "../pages/jsx.js";
import { Layout, type PageFrame } from "./ui.js";

export { can, PAGE_PERMISSIONS, type PageFrame } from "./ui.js";

export function layout<P>(frame: PageFrame, body: VNode<P>): string {
  return renderDocument(h(Layout, { frame }, body));
}

/** Builds a query string from the non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
  const s = search.toString();
  return s ? `?${s}` : "";
}
