/**
 * CSRF protection on every dashboard POST, two independent checks:
 * 1. a synchronizer token: a random per-session value in a hidden field of every form, compared
 *    in constant time (the sign-in form, which has no session yet, uses a double-submit cookie);
 * 2. an Origin check: a browser's POST names the page it came from; one from another origin is
 *    refused even if it somehow carried a token. Without Origin, Referer is checked instead.
 * SameSite=Lax on the cookies is a third, browser-side layer.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";

export const CSRF_FIELD = "_csrf";

export function tokensMatch(expected: string, given: unknown): boolean {
  if (typeof given !== "string" || given.length === 0 || expected.length === 0) return false;
  const a = createHash("sha256").update(expected).digest();
  const b = createHash("sha256").update(given).digest();
  return timingSafeEqual(a, b);
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/**
 * The origins a dashboard form may be posted from: the configured public URL and the origin the
 * request itself was addressed to (a victim's browser sends our Host but the attacker's Origin).
 */
export function allowedOrigins(request: FastifyRequest, publicUrl: string): string[] {
  const own = originOf(`${request.protocol}://${request.host}`);
  return [originOf(publicUrl), own].filter((o): o is string => o !== undefined);
}

/** Why the POST is refused (its message in i18n.ts), or undefined when both checks pass. */
export function csrfProblem(
  request: FastifyRequest,
  expectedToken: string,
  origins: string[],
): "csrf_other_site" | "csrf_token" | undefined {
  const origin = request.headers.origin;
  const referer = request.headers.referer;
  const from = origin && origin !== "null" ? originOf(origin) : referer ? originOf(referer) : undefined;
  if ((origin || referer) && (!from || !origins.includes(from))) return "csrf_other_site";
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (!tokensMatch(expectedToken, body[CSRF_FIELD])) return "csrf_token";
  return undefined;
}
