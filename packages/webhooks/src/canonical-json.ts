/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation: object keys sorted by UTF-16 code
 * units, no whitespace, numbers as ECMAScript prints them, strings with minimal escaping. The
 * payload `signature` is computed over this form, so it survives any proxy or framework that
 * re-serialises the JSON with another key order or spacing.
 *
 * `undefined` members are omitted and `toJSON()` is honoured, as `JSON.stringify` does, so a
 * JavaScript object canonicalises to the same text as its JSON wire form.
 *
 * @throws TypeError for values JSON cannot represent (NaN, Infinity, bigint, functions) and
 *   for strings with lone surrogates, which RFC 8785 forbids.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null, "x"], c: 1e21 });
 * // => '{"a":[true,null,"x"],"b":1,"c":1e+21}'
 */
export function canonicalJson(value: unknown): string {
  return canonical(value) ?? invalid(typeof value);
}

function invalid(what: unknown): never {
  throw new TypeError(`canonicalJson: ${what} is not JSON`);
}

/**
 * The canonical form, or undefined for what JSON omits (undefined, functions, symbols).
 * `omit` leaves out one top-level key: the payload's own `signature`, without copying the payload.
 */
export function canonical(value: unknown, omit?: string): string | undefined {
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown> & { toJSON?: () => unknown };
    if (typeof obj.toJSON === "function") return canonical(obj.toJSON());
    // An array's items joined by commas, as a template literal writes it.
    if (Array.isArray(obj)) return `[${obj.map((item) => canonical(item) ?? "null")}]`;
    let out = "";
    // Keys in UTF-16 code unit order (RFC 8785 §3.2.3), which is the default sort's order.
    for (const key of Object.keys(obj).sort()) {
      const member = key === omit ? undefined : canonical(obj[key]);
      // A comma before every member but the first.
      if (member !== undefined) out += (out && ",") + canonical(key) + ":" + member;
    }
    return `{${out}}`;
  }
  // JSON.stringify (ES2019+) writes exactly RFC 8785's form for the rest: strings with only
  // " \ and U+0000–U+001F escaped (short forms \b \t \n \f \r, else lowercase \u00xx), numbers
  // as ECMAScript prints them (-0 as 0). What RFC 8785 forbids and JSON.stringify would write
  // anyway (\udxxx for a lone surrogate, null for NaN and ±Infinity) throws; so does a bigint.
  if (typeof value === "string" && /\p{Cs}/u.test(value)) invalid("a lone surrogate");
  if (typeof value === "number" && !isFinite(value)) invalid(value);
  return JSON.stringify(value);
}
