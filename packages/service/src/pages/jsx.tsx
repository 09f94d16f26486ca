/** @jsxImportSource preact */
/**
 * Server-rendered pages are built from preact components and rendered to a string by
 * preact-render-to-string: every text and attribute value is escaped by the renderer, so a value
 * cannot become markup by a forgotten call. There is no way here to put markup in unescaped.
 */
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** A whole document: the doctype and the rendered tree. */
export function renderDocument<P>(node: VNode<P>): string {
  return `<!doctype html>${renderToString(node)}`;
}

/** A fragment of a page, rendered to a string (a region a script refreshes). */
export function renderFragment<P>(node: VNode<P>): string {
  return renderToString(node);
}

export type { ComponentChildren, VNode };
