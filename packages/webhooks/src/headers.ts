/**
 * Request headers in any shape merchants have at hand: a plain object with any key case,
 * a Fetch `Headers` instance, or Node's `IncomingHttpHeaders` (values may be string arrays).
 */
export type HeadersLike =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads one header by its lowercase name; repeated values are joined by a space. */
export function readHeader(headers: HeadersLike, lowerName: string): string | undefined {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(lowerName) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  // Node lower-cases header names already: the direct hit is the fast path.
  let value = record[lowerName];
  if (value === undefined) {
    for (const key in record) if (key.toLowerCase() === lowerName) value = record[key];
  }
  return typeof value === "object" ? value.join(" ") : value;
}
