// Every error code, raised the way a merchant meets it, with a message that says what to do.
import { afterEach, describe, expect, it, vi } from "vitest";
import { operationPayload, OTHER_SECRET, SECRET } from "../test/fixtures.js";
import { forceWebCrypto } from "../test/web-crypto.js";
import { verifyWebhook, type WebhookErrorCode, WebhookVerificationError } from "./index.js";
import { checkWebhookVersion } from "./sequence.js";
import { generateTestHeaders, signPayload, signWebhook } from "./signing.js";

const NOW = 1_800_000_000;
const opts = { nowSeconds: NOW };

/** A request whose headers are signed correctly over `body`, whatever `body` holds. */
async function signed(body: string) {
  return {
    body,
    headers: {
      "webhook-id": "msg_err",
      "webhook-timestamp": String(NOW),
      "webhook-signature": await signWebhook({ id: "msg_err", timestamp: NOW, body, secrets: SECRET }),
    },
  };
}

const good = () => generateTestHeaders(operationPayload(), SECRET, { timestamp: NOW, id: "msg_err" });

/**
 * For each code (the Record makes tsc require all of them): how to provoke it, and the advice its
 * message must give.
 */
const cases: Record<
  WebhookErrorCode,
  [situation: string, provoke: () => Promise<unknown>, advice: RegExp][]
> = {
  missing_header: [
    [
      "no webhook-id",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, { ...headers, "webhook-id": "" }, SECRET, opts);
      },
      /^Missing webhook-id header: pass the request headers unchanged\.$/,
    ],
  ],
  invalid_header: [
    [
      "timestamp in milliseconds",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, { ...headers, "webhook-timestamp": `${NOW}000.5` }, SECRET, opts);
      },
      /is not unix seconds: pass the request headers unchanged\.$/,
    ],
    [
      "no v1 entry",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, { ...headers, "webhook-signature": "v1a,abc" }, SECRET, opts);
      },
      /no v1,<base64> entry: pass the request headers unchanged\.$/,
    ],
  ],
  timestamp_too_old: [
    [
      "ten minutes late",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, headers, SECRET, { nowSeconds: NOW + 600 });
      },
      /600 s old \(max 300\): a replay, or sync your clock\.$/,
    ],
  ],
  timestamp_in_future: [
    [
      "ten minutes early",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, headers, SECRET, { nowSeconds: NOW - 600 });
      },
      /600 s ahead \(max 300\): a replay, or sync your clock\.$/,
    ],
  ],
  signature_mismatch: [
    [
      "wrong secret",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, headers, OTHER_SECRET, opts);
      },
      /check the secret and pass the raw body/,
    ],
  ],
  payload_signature_mismatch: [
    [
      "payload field signed with a secret the receiver lacks",
      async () => {
        const payload = operationPayload();
        const { body, headers } = await signed(
          JSON.stringify({ ...payload, signature: await signPayload(payload, OTHER_SECRET) }),
        );
        return verifyWebhook(body, headers, SECRET, opts);
      },
      /check the secrets, the previous one too\.$/,
    ],
  ],
  invalid_payload: [
    [
      "authentic but not JSON",
      async () => {
        const { body, headers } = await signed("<xml/>");
        return verifyWebhook(body, headers, SECRET, opts);
      },
      /^Body is not UTF-8 JSON: check what sent it\.$/,
    ],
    [
      "authentic but breaks a rule",
      async () => {
        const { body, headers } = await generateTestHeaders(
          { ...operationPayload(), amount: "1e3" },
          SECRET,
          {
            timestamp: NOW,
          },
        );
        return verifyWebhook(body, headers, SECRET, opts);
      },
      /answer 400; upgrade @svc\/webhooks if the service is newer\.$/,
    ],
  ],
  invalid_body: [
    [
      "a parsed object",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(JSON.parse(body), headers, SECRET, opts);
      },
      /pass the raw body \(string or bytes\), not a re-serialised object\.$/,
    ],
  ],
  invalid_secret: [
    [
      "the secret in quotes",
      async () => {
        const { body, headers } = await good();
        return verifyWebhook(body, headers, `"${SECRET}"`, opts);
      },
      /^Pass the endpoint's whsec_ secret \(or a list\), without quotes or spaces\.$/,
    ],
  ],
  unsupported_version: [
    [
      "a payload of a version newer than this library",
      async () => {
        const { body, headers } = await good();
        const sent = { ...headers, "svc-webhook-version": "2027-03-01" };
        await verifyWebhook(body, sent, SECRET, opts);
        return checkWebhookVersion(sent);
      },
      /^This payload is version 2027-03-01; @svc\/webhooks 0\.1\.0 knows 2026-11-24 — upgrade @svc\/webhooks\.$/,
    ],
  ],
  crypto_unavailable: [
    [
      "no crypto.subtle, as on a page served over http:",
      async () => {
        const { body, headers } = await good();
        forceWebCrypto(true);
        vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => a });
        return verifyWebhook(body, headers, SECRET, opts);
      },
      /^No Web Crypto \(crypto\.subtle\): serve the page over https\.$/,
    ],
  ],
};

afterEach(() => {
  vi.unstubAllGlobals();
  forceWebCrypto(false);
});

describe("status codes", () => {
  it("401 when not authentic, 400 when authentic but unreadable, 500 when the receiver is wrong", () => {
    const statuses: Record<WebhookErrorCode, number> = {
      missing_header: 401,
      invalid_header: 401,
      timestamp_too_old: 401,
      timestamp_in_future: 401,
      signature_mismatch: 401,
      payload_signature_mismatch: 401,
      invalid_payload: 400,
      unsupported_version: 400,
      invalid_body: 500,
      invalid_secret: 500,
      crypto_unavailable: 500,
    };
    for (const [code, status] of Object.entries(statuses)) {
      expect(new WebhookVerificationError(code as WebhookErrorCode, "").statusCode, code).toBe(status);
    }
  });
});

describe("error messages", () => {
  for (const [code, situations] of Object.entries(cases)) {
    for (const [situation, provoke, advice] of situations) {
      it(`${code} (${situation}) says what to do`, async () => {
        const err = await provoke().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(WebhookVerificationError);
        expect(err).toMatchObject({ code });
        expect((err as Error).message).toMatch(advice);
      });
    }
  }
});
