import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_CSS } from "../../pages/page-style.js";
import type { GatewayPaymentResult } from "../adapter.js";
import { type Fixture, startFixture, waitFor } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function startRedirect(kind: "sandbox-queued" | "ndebit", language: "en" | "ar" = "en") {
  const result = await fx
    .adapter(kind)
    .pay(fx.request(kind, { formOfPayment: "redirect", instrument: { type: "redirect" }, language }));
  if (result.status !== "action_required") throw new Error(`expected action_required, got ${result.status}`);
  return result;
}

async function press(redirectUrl: string, action: string): Promise<URL> {
  const answer = await request(redirectUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action }).toString(),
  });
  await answer.body.dump();
  expect(answer.statusCode).toBe(303);
  return new URL(String(answer.headers.location));
}

async function notified(pgReference: string): Promise<GatewayPaymentResult> {
  const note = await waitFor(() => fx.receiver.received.find((r) => r.json.pg_reference === pgReference));
  const parsed = fx.adapter("ndebit").parseNotification(note.rawBody);
  if (parsed.type !== "payment_result") throw new Error(`expected payment_result, got ${parsed.type}`);
  return parsed.result;
}

describe("sandbox redirect page", () => {
  it("renders English, left to right, with the amount and three labelled buttons", async () => {
    const started = await startRedirect("sandbox-queued");
    const answer = await request(started.redirectUrl);
    const html = await answer.body.text();
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain("10.000 KWD");
    for (const label of [">Approve<", ">Decline<", ">Cancel<"]) expect(html).toContain(label);
    expect(html).not.toContain("<script");
    // svc's card page look (one shared stylesheet), light and dark, under the same strict CSP.
    expect(html).toContain(`<style>${PAGE_CSS}</style>`);
    expect(html).toContain("@media (prefers-color-scheme:dark)");
    expect(answer.headers["content-security-policy"]).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' *; frame-ancestors 'none'",
    );
  });

  it("renders Arabic right to left", async () => {
    const started = await startRedirect("ndebit", "ar");
    const html = await (await request(started.redirectUrl)).body.text();
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain("موافقة");
    expect(html).toContain("تأكيد الدفع");
  });

  it("approve on sandbox-queued: 303 to returnUrl with pg_reference, payment_result notified, status approved", async () => {
    const started = await startRedirect("sandbox-queued");
    expect(
      (await fx.adapter("sandbox-queued").paymentStatus({ pgReference: started.pgReference })).status,
    ).toBe("action_required");
    const back = await press(started.redirectUrl, "approve");
    expect(back.searchParams.get("pg_reference")).toBe(started.pgReference);
    expect(back.toString().startsWith(fx.receiver.returnUrl)).toBe(true);
    expect((await notified(started.pgReference)).status).toBe("approved");
    expect(
      (await fx.adapter("sandbox-queued").paymentStatus({ pgReference: started.pgReference })).status,
    ).toBe("approved");
    // Pressing again (back button) changes nothing.
    await press(started.redirectUrl, "decline");
    expect(
      (await fx.adapter("sandbox-queued").paymentStatus({ pgReference: started.pgReference })).status,
    ).toBe("approved");
  });

  it("decline on ndebit carries the switch's pg_response", async () => {
    const started = await startRedirect("ndebit");
    await press(started.redirectUrl, "decline");
    const result = await notified(started.pgReference);
    expect(result.status).toBe("declined");
    expect(result.pgResponse).toMatchObject({ result: "NOT CAPTURED", is_sandbox: true });
    expect(result.pgResponse.auth_code).toMatch(/^\d{6}$/);
    expect(typeof result.pgResponse.ref).toBe("string");
  });

  it("cancel ends the payment as canceled", async () => {
    const started = await startRedirect("ndebit");
    await press(started.redirectUrl, "cancel");
    expect((await notified(started.pgReference)).status).toBe("canceled");
    expect((await fx.adapter("ndebit").paymentStatus({ pgReference: started.pgReference })).status).toBe(
      "canceled",
    );
  });

  it("refuses an unknown button with 400", async () => {
    const started = await startRedirect("ndebit");
    const answer = await request(started.redirectUrl, { method: "POST", body: "action=steal" });
    expect(answer.statusCode).toBe(400);
    expect(await answer.body.json()).toMatchObject({ error: "invalid_request" });
  });
});
