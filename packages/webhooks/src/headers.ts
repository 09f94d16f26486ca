/**
 * Request headers in any shape merchants have at hand: a plain object with any key case,
 * a Fetch `Headers` instance, or Node's `IncomingHttpHeaders` (values may be string arrays).
 *
 * @example
 * const fromNode: HeadersLike = req.headers; // Node http, Express, Fastify
 * const fromFetch: HeadersLike = request.headers; // a Fetch Headers instance
 */
export type HeadersLike =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;
