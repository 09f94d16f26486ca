/** A tiny element builder: attributes (never `style`), listeners via `on*` functions, children. */
type Attrs = Record<string, string | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string | false | undefined)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else if (typeof value === "string") el.setAttribute(name, value);
  }
  for (const child of children) if (child !== false && child !== undefined) el.append(child);
  return el;
}

let counter = 0;
/** Unique ids for label/description wiring inside one page. */
export const uid = (prefix: string) => `svc-${prefix}-${++counter}`;
