/**
 * Stripe's list answers (docs.stripe.com/api/pagination): newest first, `limit` 1–100 (default
 * 10), cursors `starting_after` / `ending_before` naming an object of the list, `created`
 * filters, and `{ object: "list", data, has_more, url }`.
 */
import type { Spec, ParamObject } from "./params.js";
import { read } from "./params.js";
import { invalidRequest } from "./errors.js";

export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;

/** The pagination parameters every list takes, as the package's PaginationParams names them. */
export const PAGINATION_FIELDS = {
  limit: { t: "integer", min: 1, max: LIST_LIMIT_MAX },
  starting_after: { t: "string" },
  ending_before: { t: "string" },
} satisfies Record<string, Spec>;

export interface Listed<T> {
  id: string;
  created: number;
  seq: number;
  object: T;
}

/** Keeps items whose `created` passes the `created` parameter (an integer or gt/gte/lt/lte). */
export function matchesCreated(created: number, params: ParamObject): boolean {
  const exact = read.integer(params, "created");
  if (exact !== undefined) return created === exact;
  const range = read.object(params, "created");
  if (!range) return true;
  const bound = (k: string) => read.integer(range, k);
  const [gt, gte, lt, lte] = [bound("gt"), bound("gte"), bound("lt"), bound("lte")];
  return (
    (gt === undefined || created > gt) &&
    (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) &&
    (lte === undefined || created <= lte)
  );
}

export interface ListAnswer<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * One page of `items` (already filtered) for `params`; `noun` names the resource in a
 * `resource_missing` answer for an unknown cursor.
 *
 * @example
 * page(listed, { limit: 2 }, "/v1/refunds", "refund"); // { object: "list", data: [2 newest], has_more, url }
 */
export function page<T>(items: Listed<T>[], params: ParamObject, url: string, noun: string): ListAnswer<T> {
  const sorted = [...items].sort((a, b) => b.created - a.created || b.seq - a.seq);
  const limit = read.integer(params, "limit") ?? LIST_LIMIT_DEFAULT;
  const after = read.string(params, "starting_after");
  const before = read.string(params, "ending_before");
  if (after && before)
    throw invalidRequest("You may only specify one of these parameters: ending_before, starting_after.", {
      code: "parameters_exclusive",
      phase: "validation",
    });
  const cursor = after ?? before;
  let start = 0;
  let end = sorted.length;
  if (cursor !== undefined) {
    const at = sorted.findIndex((i) => i.id === cursor);
    if (at < 0)
      throw invalidRequest(`No such ${noun}: '${cursor}'`, {
        code: "resource_missing",
        param: after ? "starting_after" : "ending_before",
        status: 404,
      });
    if (after) start = at + 1;
    else end = at;
  }
  const window =
    after || !before ? sorted.slice(start, start + limit) : sorted.slice(Math.max(0, end - limit), end);
  const hasMore = after || !before ? start + limit < sorted.length : end - limit > 0;
  return { object: "list", data: window.map((i) => i.object), has_more: hasMore, url };
}
