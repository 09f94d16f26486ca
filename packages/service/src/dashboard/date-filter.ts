/**
 * The dashboard's date filters: a UTC day as a date input sends it (YYYY-MM-DD), 1970-01-01 to
 * 9999-12-31 (http/time-filter.ts, shared with the API). Empty is no filter; anything else is an
 * error shown under its field, so a year 10000 is neither a silent "no filter" nor a 500.
 */
import { filterDay } from "../http/time-filter.js";
import { type DashboardLanguage, format, isolate } from "./i18n.js";

const BAD_DAY = {
  en: "Enter a date from {first} to {last}, such as {example}.",
  ar: "أدخل تاريخًا من {first} إلى {last}، مثل {example}.",
} satisfies Record<DashboardLanguage, string>;

export interface DayField {
  /** The day's first instant (a "from" filter). */
  start?: Date | undefined;
  /** The first instant after the day (an exclusive "to" filter); none for 9999-12-31. */
  end?: Date | undefined;
  /** What to show under the field when the value is not a day a filter can take. */
  error?: string | undefined;
}

/** The day a date field names: nothing when empty, its bounds, or the error to show. */
export function dayField(value: string | undefined, lang: DashboardLanguage): DayField {
  if (!value) return {};
  const day = filterDay(value);
  if (day) return day;
  const [first, last, example] = ["1970-01-01", "9999-12-31", "2026-11-21"].map((d) => isolate(lang, d));
  return { error: format(BAD_DAY[lang], { first: first!, last: last!, example: example! }) };
}
