/**
 * Text and JSON values PostgreSQL stores as they are, and a webhook's canonical JSON can sign.
 *
 * JSON.stringify writes a lone UTF-16 surrogate as `\udXXX` and NUL as `\u0000`: `jsonb` refuses
 * both (the whole statement fails), and RFC 8785 forbids the first (canonicalJson throws). Neither
 * comes from a client (the input guard refuses them) but both can come from a gateway's answer
 * (`"\ud83d"` in its JSON) or from cutting a string between a surrogate pair. Such a value must
 * never fail an operation the gateway has already made: it is stored, and sent, with each lone
 * surrogate as U+FFFD (as pg's own UTF-8 encoding of text does) and without its NULs.
 */

/** `text` with each lone surrogate as U+FFFD and its NULs taken out. */
export function storableText(text: string): string {
  return text.replace(/\p{Cs}/gu, "\uFFFD").replaceAll("\0", "");
}

/** `value` with every string in it, keys too, made {@link storableText}; other values as they are. */
export function storable<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [storableText(key), storable(v)])) as T;
  return value;
}

/** The JSON text of `value` for a `jsonb` parameter, {@link storable}. */
export function jsonParam(value: unknown): string {
  return JSON.stringify(storable(value));
}

/** `text` cut to at most `max` characters (code points, as input limits count them), never inside a pair. */
export function clipText(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join("");
}
