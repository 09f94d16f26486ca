/** @jsxImportSource preact */
/**
 * Server-rendered pages are built from preact components and rendered to a string by
 * preact-render-to-string: every text and attribute value is escaped by the renderer, so a value
 * cannot become markup by a forgotten call. The only way to put markup in unescaped is
 * {@link TrustedHtml}, for HTML this service built itself (and escaped) elsewhere.
 */
import { randomBytes } from "node:crypto";
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** A token no request can guess: where trusted markup goes once the tree is rendered. */
const SLOT = `svc-trusted-${randomBytes(12).toString("hex")}-`;
const SLOTS = new RegExp(`${SLOT}(\\d+)`, "g");
/** The trusted markup of the render under way (rendering is synchronous: one at a time). */
let pending: string[] = [];

function render<P>(node: VNode<P>): string {
  pending = [];
  try {
    const html = renderToString(node);
    return pending.length === 0 ? html : html.replace(SLOTS, (_, i: string) => pending[Number(i)] ?? "");
  } finally {
    pending = [];
  }
}

/** A whole document: the doctype and the rendered tree. */
export function renderDocument<P>(node: VNode<P>): string {
  return `<!doctype html>${render(node)}`;
}

/** A fragment of a page, rendered to a string (a region a script refreshes, a legacy page part). */
export function renderFragment<P>(node: VNode<P>): string {
  return render(node);
}

/**
 * Markup this service already built and escaped (a page not yet moved to components, an SVG
 * chart): inserted as it is, with no wrapper element. Never give it anything that came from a
 * request or the database without escaping; a component is the safe way.
 */
export function TrustedHtml({ html }: { html: string }): string {
  pending.push(html);
  return `${SLOT}${pending.length - 1}`;
}

export type { ComponentChildren, VNode };
