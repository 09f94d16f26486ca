/**
 * Stripe's form encoding: `application/x-www-form-urlencoded` with bracket paths (`a[b][c]=v`)
 * and arrays written either `a[]=x` or, as stripe-node does, `a[0]=x` (docs.stripe.com/api:
 * "the API accepts form-encoded request bodies"). Query strings of GET requests use the same.
 */
import { invalidRequest } from "./errors.js";

/** A parsed form: strings at the leaves; arrays stay objects keyed "0", "1", … until a schema reads them. */
export type FormValue = string | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

/** Splits `a[b][]` into ["a", "b", ""] ("" means "append"). */
function keyPath(rawKey: string): string[] | undefined {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
  if (!match) return undefined;
  const rest = [...(match[2] ?? "").matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? "");
  return [match[1] ?? "", ...rest];
}

function decode(part: string): string {
  return decodeURIComponent(part.replaceAll("+", " "));
}

/**
 * Parses a form body or query string into nested objects. A key used both as a value and as a
 * container (`a=1&a[b]=2`) is refused, as Stripe refuses it.
 *
 * @example
 * parseForm("amount=500&metadata[order]=42&expand[]=latest_charge");
 * // { amount: "500", metadata: { order: "42" }, expand: { "0": "latest_charge" } }
 */
export function parseForm(text: string): FormObject {
  const root: FormObject = {};
  if (!text) return root;
  for (const pair of text.split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const rawKey = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : decode(pair.slice(eq + 1));
    const path = keyPath(rawKey);
    if (!path) throw invalidRequest(`Invalid parameter name: ${rawKey}`, { phase: "validation" });
    let node: FormObject = root;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i] === "" ? String(Object.keys(node).length) : (path[i] ?? "");
      const last = i === path.length - 1;
      const existing = node[segment];
      if (last) {
        if (typeof existing === "object")
          throw invalidRequest(`Invalid parameter: ${rawKey} is both a value and a hash`, {
            param: rawKey,
            phase: "validation",
          });
        node[segment] = value;
      } else if (existing === undefined) {
        const child: FormObject = {};
        node[segment] = child;
        node = child;
      } else if (typeof existing === "string") {
        throw invalidRequest(`Invalid parameter: ${rawKey} is both a value and a hash`, {
          param: rawKey,
          phase: "validation",
        });
      } else {
        node = existing;
      }
    }
  }
  return root;
}

/** JSON with sorted keys, so two requests with the same parameters compare equal. */
export function canonicalJson(value: FormValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] ?? "")}`).join(",")}}`;
}
