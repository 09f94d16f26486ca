/**
 * Request headers in any shape merchants have at hand: a plain object with any key case,
 * a Fetch `Headers` instance, or Node's `IncomingHttpHeaders` (values may be string arrays).
 */
export type HeadersLike =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;
