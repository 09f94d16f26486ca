/**
 * The shared decisions both SDKs make: the device wallet's checks in the seed's order over any
 * platform's wallet, the error callback data and the customer's words, the national-debit popup
 * rule, and the error-reporting switch that loads a platform's reporter only when enabled.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiProblem, newIdempotencyKey } from "./api/http.js";
import { startPayment } from "./api/start-payment.js";
import { customerMessage, errorData } from "./callbacks.js";
import { en } from "./i18n/en.js";
import { languageOf } from "./i18n/language.js";
import { NATIONAL_DEBIT_PG_NAME, popupContent } from "./popup-rule.js";
import { createReporter } from "./reporting.js";
import { type WalletChecks, walletStatus } from "./wallet.js";

afterEach(() => vi.unstubAllGlobals());

const wallet = { merchant_identifier: "merchant.shop", pg_code: "sandbox" };
const bridge = (can: boolean | Error, cards: boolean | Error): WalletChecks & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    canMakePayments: async () => {
      if (can instanceof Error) throw can;
      return can;
    },
    canMakePaymentsWithActiveCard: async (id) => {
      asked.push(id);
      if (cards instanceof Error) throw cards;
      return cards;
    },
  };
};

describe("the device wallet's checks", () => {
  it("1: no gateway linked to the wallet → unavailable, the wallet never asked", async () => {
    const b = bridge(true, true);
    expect(await walletStatus(b, null)).toBe("unavailable");
    expect(await walletStatus(b, { merchant_identifier: "m", pg_code: "" })).toBe("unavailable");
    expect(b.asked).toEqual([]);
  });
  it("2: no wallet, a device that cannot pay, or one that throws → unsupported", async () => {
    expect(await walletStatus(undefined, wallet)).toBe("unsupported");
    expect(await walletStatus(bridge(false, true), wallet)).toBe("unsupported");
    expect(await walletStatus(bridge(new Error("no module"), true), wallet)).toBe("unsupported");
  });
  it("3: no active card (or the question fails) → setup; 4: a card → ready, asked with the merchant identifier", async () => {
    expect(await walletStatus(bridge(true, false), wallet)).toBe("setup");
    expect(await walletStatus(bridge(true, new Error("timeout")), wallet)).toBe("setup");
    const ready = bridge(true, true);
    expect(await walletStatus(ready, wallet)).toBe("ready");
    expect(ready.asked).toEqual(["merchant.shop"]);
  });
});

describe("callback data and words", () => {
  it("errorData carries the developer's detail, the session and the order number when there is one", () => {
    const problem = new ApiProblem("session_expired", "The session expired at 12:00.", 410);
    expect(errorData({ session_id: "sess_1", order_no: "A-1" }, "wallet_b_pay", problem)).toEqual({
      status: "error",
      message: "The session expired at 12:00.",
      form_of_payment: "wallet_b_pay",
      session_id: "sess_1",
      order_no: "A-1",
    });
    expect(
      errorData({ session_id: "sess_1", order_no: null }, "svc_pg", new Error("boom")),
    ).not.toHaveProperty("order_no");
  });
  it("the customer never reads the developer's detail", () => {
    expect(customerMessage(en, new ApiProblem("session_expired", "internal detail", 410))).toBe(
      en.err_expired,
    );
    expect(customerMessage(en, new ApiProblem("network_error", "x", 0))).toBe(en.err_network);
    expect(customerMessage(en, new Error("stack trace"))).toBe(en.err_generic);
  });
  it("a locale's language: ar* is Arabic, anything else English", () => {
    expect(languageOf("ar-KW")).toBe("ar");
    expect(languageOf("AR")).toBe("ar");
    expect(languageOf("en-US")).toBe("en");
    expect(languageOf("arn")).toBe("en");
    expect(languageOf(undefined)).toBe("en");
  });
  it("the national-debit popup shows the gateway's response; another gateway's, the whole data; none without a response", () => {
    const info = (pg_name: string) => ({ pg_code: "x", pg_name, pg_response: { result: "DECLINED" } });
    const base = { status: "canceled" as const, message: "m", form_of_payment: "redirect" as const };
    expect(popupContent({ ...base, payment_gateway_info: info(NATIONAL_DEBIT_PG_NAME) })).toEqual({
      result: "DECLINED",
    });
    // KNET, the real national debit network, shows its answer the same way.
    expect(popupContent({ ...base, payment_gateway_info: info("knet") })).toEqual({ result: "DECLINED" });
    const other = { ...base, payment_gateway_info: info("sandbox") };
    expect(popupContent(other)).toBe(other);
    expect(popupContent(base)).toBeUndefined();
  });
});

describe("the error-reporting switch", () => {
  const ctx = { baseUrl: "http://127.0.0.1:1", apiKey: "pk_test", retryDelaysMs: [1] };
  const config = (enabled: boolean) => {
    const fetch = vi.fn(async () =>
      Response.json({ error_reporting: { is_enabled: enabled, endpoint: "/v1/sdk/errors" } }),
    );
    vi.stubGlobal("fetch", fetch);
    return fetch;
  };
  const report = { message: "m", details: {} } as Parameters<ReturnType<typeof createReporter>>[0];

  it("disabled: the platform's reporter is never loaded", async () => {
    config(false);
    const load = vi.fn();
    const send = createReporter(ctx, load);
    await send(report);
    await send(report);
    expect(load).not.toHaveBeenCalled();
  });
  it("enabled: loaded and called with the configured endpoint; the configuration is read once", async () => {
    const fetch = config(true);
    const sent: string[] = [];
    const load = vi.fn(async () => ({
      sendReport: async (_c: unknown, endpoint: string) => void sent.push(endpoint),
    }));
    const send = createReporter(ctx, load);
    await send(report);
    await send(report);
    expect(sent).toEqual(["/v1/sdk/errors", "/v1/sdk/errors"]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe("idempotency keys", () => {
  it("a UUID where crypto has one, hex from getRandomValues otherwise, and a clear error without crypto", () => {
    expect(newIdempotencyKey()).toMatch(/^[0-9a-f-]{36}$/);
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => a.fill(171) });
    expect(newIdempotencyKey()).toBe("ab".repeat(16));
    vi.stubGlobal("crypto", undefined);
    expect(() => newIdempotencyKey()).toThrow(/import react-native-get-random-values/);
  });
  it("a payment without crypto is a rejection for the caller's error path, not a synchronous throw", async () => {
    vi.stubGlobal("crypto", undefined);
    const ctx = { baseUrl: "http://127.0.0.1:1", apiKey: "pk_test" };
    const started = startPayment(ctx, "sess_x", { form_of_payment: "svc_pg", pg_code: "sb" });
    await expect(started).rejects.toThrow(/react-native-get-random-values/);
  });
});

describe("the national-debit popup's rows", () => {
  it("label KNET's own field names in English and Arabic", async () => {
    const { popupRows } = await import("./popup-rows.js");
    const data = {
      status: "canceled" as const,
      message: "m",
      form_of_payment: "redirect" as const,
      payment_gateway_info: {
        pg_code: "knet",
        pg_name: "knet",
        pg_response: {
          result: "NOT CAPTURED",
          paymentid: "8962225231041181",
          tranid: "9929892231041181",
          authRespCode: "51",
        },
      },
    };
    expect(popupRows(data, "en")).toEqual([
      { label: "Result", value: "NOT CAPTURED" },
      { label: "Payment ID", value: "8962225231041181" },
      { label: "Transaction ID", value: "9929892231041181" },
      { label: "Response code", value: "51" },
    ]);
    expect(popupRows(data, "ar").map((r) => r.label)).toEqual([
      "النتيجة",
      "رقم الدفعة",
      "رقم المعاملة",
      "رمز الاستجابة",
    ]);
  });
});
