import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { OTHER_SECRET, operationPayload, paymentPayload, SECRET } from "../test/fixtures.js";
import { verifyWebhook, verifyWebhookHeaders, WebhookVerificationError } from "./index.js";
import { parseEndpointDisabledWebhook } from "./notices.js";
import { generateTestHeaders, signPayload, signWebhook } from "./signing.js";

/** What svc sends when one of a merchant's endpoints is disabled (before its signature). */
const endpointDisabledPayload = () => ({
  event: "webhook.endpoint_disabled",
  endpoint: { id: "we_1", url: "https://crm.example/hook", description: "" },
  reason: "failing",
  failing_since: "2026-11-23T10:00:00.000Z",
  last_error: "HTTP 500",
  disabled_at: "2026-11-28T10:00:00.000Z",
  timestamp_utc: "2026-11-28 10:00:00",
});

const NOW = 1_800_000_000;

async function signedOperation(overrides: Record<string, unknown> = {}) {
  return generateTestHeaders({ ...operationPayload(), ...overrides }, SECRET, {
    timestamp: NOW,
    id: "msg_abc",
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.code;
    throw err;
  }
  return "no error";
}

describe("verifyWebhook", () => {
  it("returns the typed event with the delivery id and timestamp", async () => {
    const { body, headers, payload } = await signedOperation();
    const event = await verifyWebhook(body, headers, SECRET, { nowSeconds: NOW });
    expect(event).toEqual({ type: "operation", id: "msg_abc", timestamp: NOW, payload });
  });

  it("recognises payment webhooks by their event key", async () => {
    const { body, headers } = await generateTestHeaders(paymentPayload(), SECRET, { timestamp: NOW });
    const event = await verifyWebhook(body, headers, SECRET, { nowSeconds: NOW });
    expect(event.type).toBe("payment");
    if (event.type === "payment") expect(event.payload.transactions[0]?.state).toBe("refunded");
  });

  it("accepts headers as any-case objects, Headers and Node arrays", async () => {
    const { body, headers } = await signedOperation();
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const nodeStyle = { ...headers, "x-forwarded-for": ["10.0.0.1"] };
    for (const h of [upper, new Headers(headers), nodeStyle]) {
      await expect(verifyWebhook(body, h, SECRET, { nowSeconds: NOW })).resolves.toMatchObject({
        id: "msg_abc",
      });
    }
  });

  it("accepts Buffer, Uint8Array and ArrayBuffer bodies", async () => {
    const { body, headers } = await signedOperation();
    const bytes = new TextEncoder().encode(body);
    for (const raw of [Buffer.from(body), bytes, bytes.buffer]) {
      await expect(verifyWebhook(raw, headers, SECRET, { nowSeconds: NOW })).resolves.toMatchObject({
        type: "operation",
      });
    }
  });

  it("accepts any of several secrets during a rotation", async () => {
    const { body, headers } = await signedOperation();
    await expect(
      verifyWebhook(body, headers, [OTHER_SECRET, SECRET], { nowSeconds: NOW }),
    ).resolves.toBeDefined();
    // Sender with both secrets, receiver still on the new one only.
    const rotated = {
      ...headers,
      "webhook-signature": await signWebhook({
        id: "msg_abc",
        timestamp: NOW,
        body,
        secrets: [OTHER_SECRET, SECRET],
      }),
    };
    await expect(verifyWebhook(body, rotated, SECRET, { nowSeconds: NOW })).resolves.toBeDefined();
  });

  it("names each missing header", async () => {
    const { body, headers } = await signedOperation();
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const { [name]: _dropped, ...rest } = headers;
      const err = await verifyWebhook(body, rest, SECRET, { nowSeconds: NOW }).catch(
        (e: WebhookVerificationError) => e,
      );
      expect(err).toMatchObject({ code: "missing_header", statusCode: 401 });
      expect((err as Error).message).toContain(name);
    }
  });

  it("enforces the timestamp tolerance both ways (default 5 minutes)", async () => {
    const { body, headers } = await signedOperation();
    expect(await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW + 300 }))).toBe("no error");
    expect(await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW + 301 }))).toBe(
      "timestamp_too_old",
    );
    expect(await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW - 301 }))).toBe(
      "timestamp_in_future",
    );
    expect(
      await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW + 1000, toleranceSeconds: 1000 })),
    ).toBe("no error");
    const bad = { ...headers, "webhook-timestamp": "17e8" };
    expect(await codeOf(verifyWebhook(body, bad, SECRET, { nowSeconds: NOW }))).toBe("invalid_header");
  });

  it("uses the clock by default", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    await expect(verifyWebhook(body, headers, SECRET)).resolves.toBeDefined();
    const old = await generateTestHeaders(operationPayload(), SECRET, { timestamp: Date.now() / 1000 - 600 });
    expect(await codeOf(verifyWebhook(old.body, old.headers, SECRET))).toBe("timestamp_too_old");
  });

  it("says to pass the raw body when the signature does not match", async () => {
    const { body, headers } = await signedOperation();
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    const err = await verifyWebhook(reserialised, headers, SECRET, { nowSeconds: NOW }).catch(
      (e: Error) => e,
    );
    expect(err).toMatchObject({ code: "signature_mismatch" });
    expect((err as Error).message).toMatch(/raw body/);
    expect(await codeOf(verifyWebhook(body, headers, OTHER_SECRET, { nowSeconds: NOW }))).toBe(
      "signature_mismatch",
    );
    const noV1 = { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,") };
    expect(await codeOf(verifyWebhook(body, noV1, SECRET, { nowSeconds: NOW }))).toBe("invalid_header");
  });

  it("refuses a parsed object instead of the raw body", async () => {
    const { body, headers } = await signedOperation();
    const err = await verifyWebhook(JSON.parse(body), headers, SECRET).catch(
      (e: WebhookVerificationError) => e,
    );
    expect(err).toMatchObject({ code: "invalid_body", statusCode: 500 });
    expect((err as Error).message).toContain("not a re-serialised object");
  });

  it("checks the payload signature field (payload_signature_mismatch)", async () => {
    // Headers signed correctly over a body whose signature field is wrong.
    const payload = { ...operationPayload(), amount: "99.000" };
    const body = JSON.stringify({ ...payload, signature: await signPayload(operationPayload(), SECRET) });
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(NOW),
      "webhook-signature": await signWebhook({ id: "msg_1", timestamp: NOW, body, secrets: SECRET }),
    };
    expect(await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW }))).toBe(
      "payload_signature_mismatch",
    );
    // Opting out skips only that check.
    const event = await verifyWebhook(body, headers, SECRET, { nowSeconds: NOW, payloadSignature: false });
    expect(event.payload.amount).toBe("99.000");
    const unsigned = JSON.stringify(operationPayload());
    const h2 = {
      ...headers,
      "webhook-signature": await signWebhook({
        id: "msg_1",
        timestamp: NOW,
        body: unsigned,
        secrets: SECRET,
      }),
    };
    expect(await codeOf(verifyWebhook(unsigned, h2, SECRET, { nowSeconds: NOW }))).toBe(
      "payload_signature_mismatch",
    );
  });

  it("refuses a payload RFC 8785 cannot represent (a lone surrogate) with its code, not a TypeError", async () => {
    const body = JSON.stringify({ ...operationPayload(), pg_response: { raw: "\ud800" }, signature: "ab" });
    expect(body).toContain("\\ud800");
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(NOW),
      "webhook-signature": await signWebhook({ id: "msg_1", timestamp: NOW, body, secrets: SECRET }),
    };
    expect(await codeOf(verifyWebhook(body, headers, SECRET, { nowSeconds: NOW }))).toBe(
      "payload_signature_mismatch",
    );
  });

  it("answers invalid_payload (400) for authentic but broken payloads", async () => {
    const { body, headers } = await signedOperation({ result: "maybe" });
    const err = await verifyWebhook(body, headers, SECRET, { nowSeconds: NOW }).catch(
      (e: WebhookVerificationError) => e,
    );
    expect(err).toMatchObject({ code: "invalid_payload", statusCode: 400 });
    expect((err as WebhookVerificationError).issues).toContain(
      'result: expected one of success, queued, rejected, got "maybe"',
    );
    const notJson = "not json";
    const h = {
      ...headers,
      "webhook-signature": await signWebhook({
        id: "msg_abc",
        timestamp: NOW,
        body: notJson,
        secrets: SECRET,
      }),
    };
    expect(await codeOf(verifyWebhook(notJson, h, SECRET, { nowSeconds: NOW }))).toBe("invalid_payload");
  });

  it('returns any other authentic event as "other", for the receiver to answer 2xx, not refused (it was retried until the endpoint was disabled)', async () => {
    const notice = endpointDisabledPayload();
    const signed = await generateTestHeaders(notice, SECRET, { timestamp: NOW, id: "msg_n" });
    const event = await verifyWebhook(signed.body, signed.headers, SECRET, { nowSeconds: NOW });
    expect(event).toEqual({
      type: "other",
      event: "webhook.endpoint_disabled",
      id: "msg_n",
      timestamp: NOW,
      payload: signed.payload,
    });
    // What a newer service may send one day, the same way.
    const newer = await generateTestHeaders({ event: "refund.v2", amount: "1" }, SECRET, { timestamp: NOW });
    expect(await verifyWebhook(newer.body, newer.headers, SECRET, { nowSeconds: NOW })).toMatchObject({
      type: "other",
      event: "refund.v2",
    });
    // An `event` that is not a string is not an event name.
    const odd = await generateTestHeaders({ event: 5 }, SECRET, { timestamp: NOW });
    const oddError = await verifyWebhook(odd.body, odd.headers, SECRET, { nowSeconds: NOW }).catch(
      (e: WebhookVerificationError) => e,
    );
    expect(oddError).toMatchObject({ code: "invalid_payload" });
    expect((oddError as WebhookVerificationError).issues).toContain("event: expected one of payment, got 5");
    // Authentic only: both signatures are still checked.
    expect(await codeOf(verifyWebhook(signed.body, signed.headers, OTHER_SECRET, { nowSeconds: NOW }))).toBe(
      "signature_mismatch",
    );
    // A body changed after its payload was signed, its headers signed again: the payload's own
    // signature no longer matches.
    const forged = JSON.stringify({ ...signed.payload, last_error: "all fine" });
    const headers = {
      ...signed.headers,
      "webhook-signature": await signWebhook({ id: "msg_n", timestamp: NOW, body: forged, secrets: SECRET }),
    };
    expect(await codeOf(verifyWebhook(forged, headers, SECRET, { nowSeconds: NOW }))).toBe(
      "payload_signature_mismatch",
    );
  });
});

describe("parseEndpointDisabledWebhook (@svc/webhooks/notices)", () => {
  it("types the notice svc sends when an endpoint is disabled, an empty description included", async () => {
    const notice = parseEndpointDisabledWebhook({ ...endpointDisabledPayload(), signature: "ab" });
    expect(notice.endpoint).toEqual({ id: "we_1", url: "https://crm.example/hook", description: "" });
    expect(notice.failing_since).toBe("2026-11-23T10:00:00.000Z");
  });

  it("names every broken rule", () => {
    const err = (() => {
      try {
        parseEndpointDisabledWebhook({
          ...endpointDisabledPayload(),
          reason: "bored",
          endpoint: { id: "we_1" },
        });
      } catch (e) {
        return e as WebhookVerificationError;
      }
    })();
    expect(err?.code).toBe("invalid_payload");
    expect(err?.issues).toEqual([
      "endpoint.url: required",
      'reason: expected one of failing, got "bored"',
      "signature: required",
      "endpoint.description: expected a string, got undefined",
    ]);
  });
});

describe("interop with the standardwebhooks package", () => {
  it("verifies headers that standardwebhooks signed", async () => {
    const { body } = await signedOperation();
    const now = new Date();
    const signature = new Webhook(SECRET).sign("msg_sw", now, body);
    const headers = {
      "webhook-id": "msg_sw",
      "webhook-timestamp": String(Math.floor(+now / 1000)),
      "webhook-signature": signature,
    };
    await expect(verifyWebhook(body, headers, SECRET)).resolves.toMatchObject({ id: "msg_sw" });
    await expect(verifyWebhookHeaders(body, headers, SECRET.slice(6))).resolves.toMatchObject({
      id: "msg_sw",
    });
  });

  it("produces headers that standardwebhooks verifies, rotation included", async () => {
    const { body } = await signedOperation();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "webhook-id": "msg_ours",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signWebhook({
        id: "msg_ours",
        timestamp,
        body,
        secrets: [OTHER_SECRET, SECRET],
      }),
    };
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(OTHER_SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    const wrong = { ...headers, "webhook-id": "msg_other" };
    expect(() => new Webhook(SECRET).verify(body, wrong)).toThrow();
  });
});
