import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { OTHER_SECRET, operationPayload, SECRET } from "../test/fixtures.js";
import { forceWebCrypto } from "../test/web-crypto.js";
import { verifyWebhook, verifyWebhookHeaders, WebhookVerificationError } from "./index.js";
import { generateSecret, generateTestHeaders, signPayload, signWebhook } from "./signing.js";

describe("signWebhook", () => {
  it("matches a known Standard Webhooks vector", async () => {
    // The test vector of the standardwebhooks reference libraries.
    const signature = await signWebhook({
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
      secrets: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    });
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("writes one v1 entry per secret, in order", async () => {
    const input = { id: "msg_1", timestamp: new Date(1_700_000_000_000), body: "{}" };
    const both = await signWebhook({ ...input, secrets: [SECRET, OTHER_SECRET] });
    const first = await signWebhook({ ...input, secrets: SECRET });
    const second = await signWebhook({ ...input, secrets: OTHER_SECRET });
    expect(both).toBe(`${first} ${second}`);
  });

  it("signs bytes, ArrayBuffers and strings alike", async () => {
    const body = '{"a":"é"}';
    const base = { id: "msg_1", timestamp: 1_700_000_000, secrets: SECRET };
    const fromString = await signWebhook({ ...base, body });
    const bytes = new TextEncoder().encode(body);
    expect(await signWebhook({ ...base, body: bytes })).toBe(fromString);
    expect(await signWebhook({ ...base, body: bytes.buffer })).toBe(fromString);
  });

  it("accepts a bare base64 secret like standardwebhooks", async () => {
    const base = { id: "msg_1", timestamp: 1_700_000_000, body: "{}" };
    expect(await signWebhook({ ...base, secrets: SECRET.slice("whsec_".length) })).toBe(
      await signWebhook({ ...base, secrets: SECRET }),
    );
  });

  it("rejects unusable secrets with invalid_secret", async () => {
    const base = { id: "msg_1", timestamp: 1, body: "{}" };
    await expect(signWebhook({ ...base, secrets: "whsec_not base64!" })).rejects.toMatchObject({
      code: "invalid_secret",
    });
    await expect(signWebhook({ ...base, secrets: [] })).rejects.toMatchObject({ code: "invalid_secret" });
    await expect(signWebhook({ ...base, secrets: "" })).rejects.toMatchObject({ code: "invalid_secret" });
  });
});

describe("signPayload", () => {
  it("is lowercase hex HMAC over the canonical payload without signature", async () => {
    const payload = operationPayload();
    const signature = await signPayload(payload, SECRET);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    // Independent computation with node:crypto.
    const { createHmac } = await import("node:crypto");
    const { canonicalJson } = await import("./canonical-json.js");
    const key = Buffer.from(SECRET.slice(6), "base64");
    expect(signature).toBe(createHmac("sha256", key).update(canonicalJson(payload)).digest("hex"));
    // An existing signature field is ignored, so re-signing is idempotent.
    expect(await signPayload({ ...payload, signature: "stale" }, SECRET)).toBe(signature);
  });
});

describe("the Web Crypto path (browsers, edge, Node < 20.16)", () => {
  afterAll(() => forceWebCrypto(false));
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });
  it("produces the same signatures as the node:crypto fast path", async () => {
    const payload = operationPayload();
    const input = { id: "msg_1", timestamp: 1_700_000_000, body: JSON.stringify(payload), secrets: SECRET };
    const fast = [await signWebhook(input), await signPayload(payload, SECRET)];
    forceWebCrypto(true);
    expect([await signWebhook(input), await signPayload(payload, SECRET)]).toEqual(fast);
  });

  it("verifies like the synchronous path: text fast path, canonical fallback, rotation, failures", async () => {
    forceWebCrypto(true);
    const { body, headers, payload } = await generateTestHeaders(operationPayload(), SECRET);
    const event = await verifyWebhook(body, headers, [OTHER_SECRET, SECRET]);
    expect(event).toMatchObject({ type: "operation", payload });
    // Another key order and spacing: only the canonical form of the parsed payload matches.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(payload).reverse()), null, 1);
    const id = headers["webhook-id"];
    const timestamp = Number(headers["webhook-timestamp"]);
    const resigned = {
      ...headers,
      "webhook-signature": await signWebhook({ id, timestamp, body: reordered, secrets: SECRET }),
    };
    await expect(verifyWebhook(reordered, resigned, SECRET)).resolves.toMatchObject({ payload });
    const tampered = reordered.replace('"10.500"', '"11.500"');
    const forged = {
      ...headers,
      "webhook-signature": await signWebhook({ id, timestamp, body: tampered, secrets: SECRET }),
    };
    await expect(verifyWebhook(tampered, forged, SECRET)).rejects.toMatchObject({
      code: "payload_signature_mismatch",
    });
    await expect(verifyWebhook(body, headers, OTHER_SECRET)).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it("does not keep a failed key import: the next verification imports the key again", async () => {
    forceWebCrypto(true); // also empties the key cache
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    forceWebCrypto(true);
    // The platform's importKey fails once (our code is not replaced).
    const importKey = vi
      .spyOn(crypto.subtle, "importKey")
      .mockRejectedValueOnce(new DOMException("transient failure", "OperationError"));
    await expect(verifyWebhook(body, headers, SECRET)).rejects.toThrow("transient failure");
    await expect(verifyWebhook(body, headers, SECRET)).resolves.toMatchObject({ type: "operation" });
    // Imported again after the failure, then kept: a third verification imports nothing.
    await verifyWebhook(body, headers, SECRET);
    expect(importKey).toHaveBeenCalledTimes(2);
  });

  it("without crypto.subtle (a page served over http:), says what is needed", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    forceWebCrypto(true);
    // What an insecure browser context has: crypto.getRandomValues, no crypto.subtle.
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => a });
    const err = await verifyWebhook(body, headers, SECRET).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err).toMatchObject({ code: "crypto_unavailable", statusCode: 500 });
    expect((err as Error).message).toMatch(/crypto\.subtle.*serve the page over https/);
  });
});

describe("generateTestHeaders and generateSecret", () => {
  it("produces a request that standardwebhooks accepts", async () => {
    const { body, headers, payload } = await generateTestHeaders(operationPayload(), SECRET);
    expect(payload.signature).toBe(await signPayload(payload, SECRET));
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(payload);
  });

  it("generates whsec_ secrets of 32 random bytes", async () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
    const { body, headers } = await generateTestHeaders({ a: 1 }, secret, { timestamp: new Date() });
    await expect(verifyWebhookHeaders(body, headers, secret)).resolves.toMatchObject({ secret });
  });
});
