/**
 * Date filters at the edge of what svc represents, on both stores over HTTP: the last day,
 * 9999-12-31, is taken by every filter of the API and the dashboard (its end must not become
 * 10000-01-01, which PGlite sends as "+010000-01-01…" and PostgreSQL refuses: a 500 before), and
 * year 10000, year 0 and impossible days are refused with what to send, never ignored or a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { filterDay, filterTime, LAST_FILTER_TIME_MS } from "./time-filter.js";

const LAST_DAY = "9999-12-31";
const UNREPRESENTABLE = ["10000-01-01", "0000-01-01"];

describe("filterTime and filterDay", () => {
  it("take 1970 to the end of 9999 and nothing else", () => {
    expect(filterTime("9999-12-31T23:59:59.999Z")?.getTime()).toBe(LAST_FILTER_TIME_MS);
    expect(filterTime("1970-01-01")?.getTime()).toBe(0);
    expect(filterTime("2026-11-21T10:00:00+03:00")?.toISOString()).toBe("2026-11-21T07:00:00.000Z");
    for (const bad of [
      "10000-01-01",
      "+010000-01-01T00:00:00Z",
      "0000-01-01",
      "1969-12-31T23:59:59.999Z",
      // The last day in another zone ends in year 10000 once in UTC.
      "9999-12-31T23:30:00-01:00",
      "2026-02-30",
      "2026-13-01",
      "yesterday",
      "",
      // No zone: the server's own would be guessed (JavaScript reads these in local time).
      "2026-11-21T10:00:00",
      "2026-11-21T10:00",
      "2026-11-21 10:00:00Z",
      // What Date.parse takes besides ISO 8601.
      "2026-11-21T10:00:00 GMT+0300",
      "2026-11-21T10:00:00+0300",
      "2026-11-21junk",
    ])
      expect(filterTime(bad), bad).toBeUndefined();
    expect(filterTime("2026-11-21T10:00Z")?.toISOString()).toBe("2026-11-21T10:00:00.000Z");
    expect(filterTime("2026-11-21t10:00:00.5z")?.toISOString()).toBe("2026-11-21T10:00:00.500Z");
  });

  it("bound a day, the last one without an end past 9999", () => {
    expect(filterDay("2026-11-21")).toEqual({
      start: new Date("2026-11-21T00:00:00Z"),
      end: new Date("2026-11-22T00:00:00Z"),
    });
    expect(filterDay(LAST_DAY)).toEqual({ start: new Date("9999-12-31T00:00:00Z"), end: undefined });
    for (const bad of [...UNREPRESENTABLE, "2026-02-29", "2026-11-21T00:00:00Z", "21/11/2026"])
      expect(filterDay(bad), bad).toBeUndefined();
  });
});

describe.each(STORES)("date filters at the edge on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let client: DashboardClient;
  let sessionId: string;
  let endpointId: string;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    client = await signedIn(stack, m.admin);
    sessionId = (await createTransaction(stack, m)).json.session_id;
    endpointId = (
      await api(stack, "POST", "/v1/webhooks/endpoints", {
        auth: apiKey(m.privateKey),
        body: { url: "https://crm.example/hooks" },
      })
    ).json.id;
  });
  afterAll(() => stack?.close());

  const API_FILTERS = () => [
    { method: "GET", path: (v: string) => `/v1/payments?since=${v}`, field: "since" },
    { method: "GET", path: (v: string) => `/v1/payments?until=${v}`, field: "until" },
    { method: "GET", path: (v: string) => `/v1/webhooks/messages?since=${v}`, field: "since" },
    { method: "GET", path: (v: string) => `/v1/webhooks/messages?until=${v}`, field: "until" },
    {
      method: "POST",
      path: () => "/v1/webhooks/replay",
      body: (v: string) => ({ status: "failed", since: v }),
      field: "since",
    },
    {
      method: "POST",
      path: () => "/v1/webhooks/replay",
      body: (v: string) => ({ status: "failed", until: v }),
      field: "until",
    },
    {
      method: "POST",
      path: () => `/v1/webhooks/endpoints/${endpointId}/replay`,
      body: (v: string) => ({ since: v }),
      field: "since",
    },
  ];

  it("the API takes the last day on every time filter and refuses years 10000 and 0, and a time without its zone, with a 422 naming the field", async () => {
    for (const f of API_FILTERS()) {
      const call = (v: string) =>
        api(stack, f.method, f.path(v), {
          auth: apiKey(m.privateKey),
          ...(f.body ? { body: f.body(v) } : {}),
        });
      const last = await call(LAST_DAY);
      expect(last.status, `${f.method} ${f.path(LAST_DAY)}`).toBeLessThan(300);
      for (const bad of [...UNREPRESENTABLE, "2026-11-21T10:00:00"]) {
        const refused = await call(bad);
        expect(refused.status, `${f.method} ${f.path(bad)}`).toBe(422);
        expect(refused.json.code).toBe("validation_failed");
        expect(refused.json.errors[f.field][0]).toContain("from 1970-01-01 to 9999-12-31");
        expect(refused.json.errors[f.field][0]).toContain("with its zone (Z or an offset)");
      }
    }
    // Up to the end of the last day: today's payment is in it, and nothing is after it.
    const all = await api(stack, "GET", "/v1/payments?until=9999-12-31T23:59:59.999Z", {
      auth: apiKey(m.privateKey),
    });
    expect(all.json.data.map((p: { session_id: string }) => p.session_id)).toContain(sessionId);
  });

  it("the dashboard takes the last day on every date filter and shows years 10000 and 0 as a field error (422)", async () => {
    const pages = [
      "/dashboard/payments?from=",
      "/dashboard/payments?to=",
      "/dashboard/deliveries?since=",
      "/dashboard/deliveries?until=",
    ];
    for (const page of pages) {
      const last = await client.get(`${page}${LAST_DAY}`);
      expect(last.status, page + LAST_DAY).toBe(200);
      for (const bad of UNREPRESENTABLE) {
        const refused = await client.get(`${page}${bad}`);
        expect(refused.status, page + bad).toBe(422);
        expect(refused.text).toContain('aria-invalid="true"');
        expect(refused.text).toContain("Enter a date from 1970-01-01 to 9999-12-31");
      }
    }
    // "To 9999-12-31" includes that whole day, so every payment; "from" it, none yet.
    expect((await client.get(`/dashboard/payments?to=${LAST_DAY}`)).text).toContain(sessionId);
    expect((await client.get(`/dashboard/payments?from=${LAST_DAY}`)).text).not.toContain(sessionId);

    const csv = await client.get(`/dashboard/payments/export.csv?to=${LAST_DAY}`);
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(sessionId);
    const badCsv = await client.get("/dashboard/payments/export.csv?to=10000-01-01");
    expect(badCsv.status).toBe(422);
    expect(badCsv.text).toContain("Enter a date from 1970-01-01 to 9999-12-31");
  });

  it("the dashboard's replay of failed deliveries takes the last day and refuses year 10000 instead of replaying everything", async () => {
    await client.get("/dashboard/deliveries");
    const last = await client.post("/dashboard/deliveries/replay", {
      failed_since: "2026-01-01",
      failed_until: LAST_DAY,
    });
    expect(last.status).toBe(303);
    expect((await client.get("/dashboard/deliveries")).text).not.toContain("Enter a date");

    for (const bad of UNREPRESENTABLE) {
      const refused = await client.post("/dashboard/deliveries/replay", { failed_until: bad });
      expect(refused.status).toBe(303);
      const shown = await client.get("/dashboard/deliveries");
      expect(shown.text).toContain('class="notice error"');
      expect(shown.text).toContain("Failed until: Enter a date from 1970-01-01 to 9999-12-31");
    }
  });
});
