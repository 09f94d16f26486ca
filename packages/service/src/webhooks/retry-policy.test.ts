import { describe, expect, it } from "vitest";
import { timestampUtc } from "./format.js";
import { nextState, parseRetryAfter } from "./retry-policy.js";

const now = new Date("2026-11-21T10:00:00Z");
const schedule = [5, 300, 1800];
const failure = { ok: false, statusCode: 500, retryAfterSeconds: null };

describe("retry policy", () => {
  it("follows the schedule with ±10 % jitter, then fails after the last try", () => {
    const low = nextState({ tries: 1, retry_schedule_seconds: schedule }, failure, now, () => 0);
    const high = nextState({ tries: 1, retry_schedule_seconds: schedule }, failure, now, () => 0.999999);
    expect(low.status).toBe("retrying");
    expect(low.nextAttemptAt!.getTime() - now.getTime()).toBe(4500);
    expect(high.nextAttemptAt!.getTime() - now.getTime()).toBeCloseTo(5500, -1);
    const second = nextState({ tries: 2, retry_schedule_seconds: schedule }, failure, now, () => 0.5);
    expect(second.nextAttemptAt!.getTime() - now.getTime()).toBe(300_000);
    expect(nextState({ tries: 4, retry_schedule_seconds: schedule }, failure, now).status).toBe("failed");
  });
  it("succeeds on 2xx, stops on 410, honours Retry-After", () => {
    expect(
      nextState({ tries: 1, retry_schedule_seconds: schedule }, { ...failure, ok: true }, now).status,
    ).toBe("succeeded");
    expect(
      nextState({ tries: 1, retry_schedule_seconds: schedule }, { ...failure, statusCode: 410 }, now),
    ).toEqual({
      status: "failed",
      nextAttemptAt: null,
    });
    const later = nextState(
      { tries: 1, retry_schedule_seconds: schedule },
      { ok: false, statusCode: 429, retryAfterSeconds: 120 },
      now,
    );
    expect(later.nextAttemptAt!.getTime() - now.getTime()).toBe(120_000);
  });
  it("parses Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("30")).toBe(30);
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:01:00 GMT", now.getTime())).toBe(60);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
  it("formats timestamp_utc as YYYY-MM-DD HH:MM:SS in UTC", () => {
    expect(timestampUtc(new Date("2026-11-21T23:05:09.987+02:00"))).toBe("2026-11-21 21:05:09");
  });
});
