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
  const text = serialise(value);
  if (text === undefined) throw new TypeError("canonicalJson: value has no JSON representation");
  return text;
}

function serialise(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return serialiseString(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not valid JSON`);
      // ECMAScript Number.prototype.toString is exactly RFC 8785's number format (and -0 → "0").
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      throw new TypeError("canonicalJson: bigint has no JSON representation; use a string");
  }
  const obj = value as { toJSON?: () => unknown };
  if (typeof obj.toJSON === "function") return serialise(obj.toJSON());
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += serialise(value[i]) ?? "null";
    }
    return out + "]";
  }
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 prescribes.
  const keys = Object.keys(record).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const member = serialise(record[key]);
    if (member === undefined) continue;
    out += (first ? "" : ",") + serialiseString(key) + ":" + member;
    first = false;
  }
  return out + "}";
}

// Characters that need escaping or a surrogate check; most strings have none and skip both.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000–U+001F are exactly what JSON must escape.
const SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;
// Lone surrogates: a high not followed by a low, or a low not preceded by a high.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serialiseString(text: string): string {
  if (!SPECIAL.test(text)) return `"${text}"`;
  if (LONE_SURROGATE.test(text)) {
    throw new TypeError("canonicalJson: string contains a lone surrogate, which RFC 8785 forbids");
  }
  // JSON.stringify (ES2019+) escapes exactly what RFC 8785 requires: " \ and U+0000–U+001F,
  // with the short forms \b \t \n \f \r and lowercase \u00xx otherwise.
  return JSON.stringify(text);
}
