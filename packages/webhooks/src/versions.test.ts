// Payload versions on the receiving side: what webhookMeta reports, what checkWebhookVersion
// accepts, and verifyWebhook's part (it verifies; the version is the adapters' and the caller's).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operationPayload, SECRET } from "../test/fixtures.js";
import { verifyWebhook, WebhookVerificationError } from "./index.js";
import { checkWebhookVersion, webhookMeta } from "./sequence.js";
import { generateTestHeaders } from "./signing.js";
import { CURRENT_PAYLOAD_VERSION, LIBRARY_VERSION, PAYLOAD_VERSIONS, VERSION_HEADER } from "./versions.js";

const refusal = (version: string) =>
  `This payload is version ${version}; @svc/webhooks 0.1.0 knows 2026-11-24 — upgrade @svc/webhooks.`;

function refused(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    return err as WebhookVerificationError;
  }
  throw new Error("not refused");
}

describe("payload versions", () => {
  it("names this package's own version in the refusal", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(LIBRARY_VERSION).toBe(manifest.version);
    expect(PAYLOAD_VERSIONS).toEqual(["2026-11-24"]);
    expect(CURRENT_PAYLOAD_VERSION).toBe("2026-11-24");
    expect(VERSION_HEADER).toBe("svc-webhook-version");
  });

  it("webhookMeta reports the version sent, and the first version when there is none", () => {
    expect(webhookMeta({ "svc-webhook-version": "2026-11-24" }).version).toBe("2026-11-24");
    expect(webhookMeta(new Headers({ "Svc-Webhook-Version": "2027-03-01" })).version).toBe("2027-03-01");
    expect(webhookMeta({ "SVC-WEBHOOK-VERSION": ["2027-03-01"] }).version).toBe("2027-03-01");
    expect(webhookMeta({}).version).toBe(PAYLOAD_VERSIONS[0]);
    expect(webhookMeta(new Headers()).version).toBe(PAYLOAD_VERSIONS[0]);
    expect(webhookMeta({ "svc-webhook-version": "" }).version).toBe(PAYLOAD_VERSIONS[0]);
  });

  it("checkWebhookVersion accepts every known version and no header, and refuses others by name", () => {
    for (const version of PAYLOAD_VERSIONS)
      expect(checkWebhookVersion(new Headers({ [VERSION_HEADER]: version }))).toBe(version);
    expect(checkWebhookVersion({})).toBe("2026-11-24");
    for (const version of ["2027-03-01", "2026-11-25", "v2", "2025-01-01"]) {
      const err = refused(() => checkWebhookVersion({ [VERSION_HEADER]: version }));
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect(err).toMatchObject({ code: "unsupported_version", statusCode: 400, message: refusal(version) });
    }
  });

  it("verifyWebhook verifies a payload whatever its version header; the version is checked apart", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    for (const version of [undefined, "2026-11-24", "2027-03-01"]) {
      const sent = version ? { ...headers, [VERSION_HEADER]: version } : headers;
      const event = await verifyWebhook(body, sent, SECRET);
      expect(event.payload).toMatchObject({ reference_number: "REF-7Q2K9" });
    }
  });
});
