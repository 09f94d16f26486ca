/**
 * KNET's numbers as the stand-in makes them: ids of the lengths KNET's samples show (payment id
 * and transaction id 16 digits, reference 12, authorisation code 6), random so that two
 * stand-ins, or two test runs against one database, do not hand out the same ones.
 */
import { randomInt } from "node:crypto";

/** Kuwait's offset from UTC (no daylight saving): KNET's post date is a Kuwaiti date. */
const KUWAIT_OFFSET_MS = 3 * 60 * 60_000;

/** `length` random digits, the first not 0. */
export function randomDigits(length: number): string {
  let digits = String(randomInt(1, 10));
  while (digits.length < length) digits += String(randomInt(0, 10));
  return digits;
}

/** Hands out ids never handed out before by this stand-in. */
export class IdSource {
  private readonly used = new Set<string>();

  next(length: number): string {
    for (;;) {
      const id = randomDigits(length);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

/** KNET's post date, MMDD, of `now` in Kuwait. */
export function postDate(now: Date = new Date()): string {
  const kuwait = new Date(now.getTime() + KUWAIT_OFFSET_MS);
  const mm = String(kuwait.getUTCMonth() + 1).padStart(2, "0");
  const dd = String(kuwait.getUTCDate()).padStart(2, "0");
  return `${mm}${dd}`;
}
