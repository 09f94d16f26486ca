/** @jsxImportSource preact */
/**
 * Server-rendered pages are built from preact components and rendered to a string by
 * preact-render-to-string: every text and attribute value is escaped by the renderer, so a value
 * cannot become markup by a forgotten call. Markup cannot be put in unescaped; code can, in three
 * components below: a page's own stylesheet and script (constants) and its script's JSON data.
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

/*
 * The three places a page holds code rather than text, each written unescaped because escaping
 * would break it. None takes a value from a request or the database as code.
 */

/** The page's own stylesheet (a constant of this service), allowed by the response's CSP nonce. */
export function InlineStyle({ css, nonce }: { css: string; nonce: string }): VNode {
  return <style nonce={nonce} dangerouslySetInnerHTML={{ __html: css }} />;
}

/** The page's own script (a constant of this service), allowed by the response's CSP nonce. */
export function InlineScript({ code, nonce }: { code: string; nonce: string }): VNode {
  return <script nonce={nonce} dangerouslySetInnerHTML={{ __html: code }} />;
}

/** Data for the page's script: JSON with every `<` escaped, so no value can close the element. */
export function JsonData({ id, value }: { id: string; value: unknown }): VNode {
  const json = JSON.stringify(value).replace(/</g, "\\u003c");
  return <script type="application/json" id={id} dangerouslySetInnerHTML={{ __html: json }} />;
}
