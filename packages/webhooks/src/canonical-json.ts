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

function invalid(what: string): never {
  throw new TypeError(`canonicalJson: ${what} is not JSON`);
}

// Characters that need escaping or a surrogate check; most strings have none and skip both.
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Object keys in UTF-16 code unit order (RFC 8785 §3.2.3), which is how `<` compares strings.
 * Insertion sort: payload objects have a handful of keys, often already in order, and for those
 * it is several times faster than Array.prototype.sort; larger objects use the built-in sort.
 */
function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i;
    for (; j && keys[j - 1]! > key; j--) keys[j] = keys[j - 1]!;
    keys[j] = key;
  }
  return keys;
}

/**
 * The canonical form, or undefined for what JSON omits (undefined, functions, symbols).
 * `omit` leaves out one top-level key: the payload's own `signature`, without copying the payload.
 */
export function canonical(value: unknown, omit?: string): string | undefined {
  if (typeof value === "string") {
    if (!SPECIAL.test(value)) return `"${value}"`;
    // encodeURIComponent throws on exactly the lone surrogates RFC 8785 forbids.
    try {
      encodeURIComponent(value);
    } catch {
      invalid("a lone surrogate");
    }
  } else if (typeof value === "number") {
    // ECMAScript Number.prototype.toString is exactly RFC 8785's number format (and -0 → "0").
    return Number.isFinite(value) ? `${value}` : invalid(`${value}`);
  } else if (typeof value === "bigint") invalid("a bigint (use a string)");
  if (!value || typeof value !== "object") {
    // JSON.stringify (ES2019+) escapes exactly what RFC 8785 requires: " \ and U+0000–U+001F,
    // with the short forms \b \t \n \f \r and lowercase \u00xx otherwise.
    return JSON.stringify(value);
  }
  const obj = value as Record<string, unknown> & { toJSON?: () => unknown };
  if (typeof obj.toJSON === "function") return canonical(obj.toJSON());
  let out = "";
  if (Array.isArray(obj)) {
    for (const item of obj) out += (out ? "," : "") + (canonical(item) ?? "null");
    return `[${out}]`;
  }
  for (const key of sortedKeys(obj)) {
    const member = key === omit ? undefined : canonical(obj[key]);
    if (member !== undefined) out += `${out ? "," : ""}${canonical(key)}:${member}`;
  }
  return `{${out}}`;
}
