/**
 * The times a filter (since/until, from/to) may name: 1970-01-01T00:00:00Z to the last
 * millisecond of 9999-12-31, for the API's ISO 8601 times and the dashboard's days alike, so the
 * two cannot drift apart. The upper bound is JavaScript's, not PostgreSQL's (timestamptz goes
 * to 294276 AD): past 9999 `toISOString` writes "+010000-01-01T…", which PGlite sends as is and
 * PostgreSQL refuses, so an end of day computed as "the next day's start" must never leave 9999.
 */
import { validationError } from "./problem.js";

const FIRST_FILTER_YEAR = 1970;
const LAST_FILTER_YEAR = 9999;
/** The last representable instant: the end of 9999-12-31 UTC. */
export const LAST_FILTER_TIME_MS = Date.UTC(LAST_FILTER_YEAR, 11, 31, 23, 59, 59, 999);
const DAY_MS = 86_400_000;
/**
 * A date (its UTC midnight), or a date and time with its zone: `Z` or an offset. A time without
 * one is refused rather than read in the server's own zone, which the caller cannot know.
 */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What to send instead, for a 422's `errors` (the API). */
export const TIME_RULE =
  "must be an ISO 8601 date or time with its zone (Z or an offset) from 1970-01-01 to 9999-12-31T23:59:59.999Z, such as 2026-11-21 or 2026-11-21T10:00:00Z";

/** True for a real calendar day (no 2026-02-30) within the filter years. */
function realDay(year: number, month: number, day: number): boolean {
  if (year < FIRST_FILTER_YEAR || year > LAST_FILTER_YEAR) return false;
  const at = new Date(Date.UTC(year, month - 1, day));
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

function inRange(at: Date): boolean {
  const ms = at.getTime();
  return !Number.isNaN(ms) && at.getUTCFullYear() >= FIRST_FILTER_YEAR && ms <= LAST_FILTER_TIME_MS;
}

/**
 * An ISO 8601 time with its zone (2026-11-21T10:00:00Z, 2026-11-21T13:00:00+03:00, or a date: its
 * UTC midnight) a filter can take, or undefined: malformed, without a zone, an impossible date,
 * or outside 1970 … the end of 9999 once in UTC.
 *
 * @example filterTime("9999-12-31T23:59:59.999Z") // a Date; filterTime("2026-11-21T10:00:00") // undefined
 */
export function filterTime(value: string): Date | undefined {
  const date = ISO_TIME.exec(value);
  if (!date || !realDay(Number(date[1]), Number(date[2]), Number(date[3]))) return undefined;
  const at = new Date(value);
  return inRange(at) ? at : undefined;
}

/**
 * A UTC day (YYYY-MM-DD) as a filter's bounds: `start` its first instant, `end` the first
 * instant after it (exclusive), or no end for 9999-12-31, after which no time can be stored.
 * Undefined when it is not such a day.
 *
 * @example filterDay("2026-11-21") // { start: 2026-11-21T00:00Z, end: 2026-11-22T00:00Z }
 */
export function filterDay(value: string): { start: Date; end: Date | undefined } | undefined {
  if (!DAY.test(value)) return undefined;
  const start = filterTime(`${value}T00:00:00Z`);
  if (!start) return undefined;
  const next = start.getTime() + DAY_MS;
  return { start, end: next > LAST_FILTER_TIME_MS ? undefined : new Date(next) };
}

/** The API's query or body time: undefined when absent, else a Date, or a 422 naming `field`. */
export function apiFilterTime(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = filterTime(value);
  if (!at) throw validationError({ [field]: [TIME_RULE] });
  return at;
}
