import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { OTHER_SECRET, operationPayload, paymentPayload, SECRET } from "../test/fixtures.js";
import { verifyWebhook, verifyWebhookHeaders, WebhookVerificationError } from "./index.js";
import { generateTestHeaders, signPayload, signWebhook } from "./signing.js";

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
    const unknown = await generateTestHeaders({ event: "refund.v2" }, SECRET, { timestamp: NOW });
    expect(await codeOf(verifyWebhook(unknown.body, unknown.headers, SECRET, { nowSeconds: NOW }))).toBe(
      "invalid_payload",
    );
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
