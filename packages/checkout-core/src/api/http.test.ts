/** The fetch wrapper's retries: GETs and keyed POSTs are asked again on transient failures only. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiProblem, request } from "./http.js";

const ctx = { baseUrl: "http://127.0.0.1:1", apiKey: "pk_test", retryDelaysMs: [1, 1, 1] };
const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

afterEach(() => vi.unstubAllGlobals());

function stubFetch(...replies: (Response | Error)[]) {
  const calls: RequestInit[] = [];
  vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
    calls.push(init);
    const next = replies.shift();
    if (!next) throw new Error("no more replies");
    if (next instanceof Error) throw next;
    return next;
  });
  return calls;
}

describe("request", () => {
  it("a GET survives a network blip and a 503", async () => {
    const calls = stubFetch(
      new TypeError("Failed to fetch"),
      answer(503, { code: "unavailable" }),
      answer(200, { ok: 1 }),
    );
    expect(await request(ctx, "GET", "/v1/x")).toEqual({ ok: 1 });
    expect(calls).toHaveLength(3);
  });

  it("a POST with an Idempotency-Key is sent again with the same key after 504 gateway_outcome_unknown", async () => {
    const calls = stubFetch(
      answer(504, { code: "gateway_outcome_unknown", detail: "d" }),
      answer(200, { status: "success" }),
    );
    expect(await request(ctx, "POST", "/v1/x", { a: 1 }, { idempotencyKey: "k-1" })).toEqual({
      status: "success",
    });
    expect(calls.map((c) => (c.headers as Record<string, string>)["idempotency-key"])).toEqual([
      "k-1",
      "k-1",
    ]);
  });

  it("a POST without a key is never sent twice", async () => {
    const calls = stubFetch(new TypeError("Failed to fetch"), answer(200, {}));
    await expect(request(ctx, "POST", "/v1/x", {})).rejects.toMatchObject({ code: "network_error" });
    expect(calls).toHaveLength(1);
  });

  it("a decided answer (422, 402, 502) is not retried; retries end after the schedule", async () => {
    const calls = stubFetch(answer(422, { code: "validation_failed", detail: "Fix it." }));
    await expect(request(ctx, "GET", "/v1/x")).rejects.toEqual(
      new ApiProblem("validation_failed", "Fix it.", 422),
    );
    expect(calls).toHaveLength(1);
    const many = stubFetch(...Array.from({ length: 5 }, () => new TypeError("offline")));
    await expect(request(ctx, "GET", "/v1/x")).rejects.toMatchObject({ code: "network_error" });
    expect(many).toHaveLength(4);
  });
});
