// The webhook-signature header's entries: only a whole `v1,<base64>` entry can match, wherever it
// stands among the space-separated entries.
import { describe, expect, it } from "vitest";
import { operationPayload, SECRET } from "../test/fixtures.js";
import { verifyWebhookHeaders, type WebhookVerificationError } from "./index.js";
import { generateTestHeaders } from "./signing.js";

const NOW = 1_800_000_000;

async function codeWith(signature: (valid: string) => string): Promise<string> {
  const { body, headers } = await generateTestHeaders(operationPayload(), SECRET, { timestamp: NOW });
  const sent = { ...headers, "webhook-signature": signature(headers["webhook-signature"]) };
  return verifyWebhookHeaders(body, sent, SECRET, { nowSeconds: NOW }).then(
    () => "no error",
    (err: WebhookVerificationError) => err.code,
  );
}

describe("webhook-signature entries", () => {
  it("finds the matching v1 entry among others, extra spaces included", async () => {
    expect(await codeWith((v) => `v1,AAAA ${v}`)).toBe("no error");
    expect(await codeWith((v) => `v2,${v.slice(3)} ${v} v1a,x`)).toBe("no error");
    expect(await codeWith((v) => ` ${v}  v1,AAAA `)).toBe("no error");
  });

  it("matches only a whole v1 entry: not another scheme, a longer or shorter value, or v1 inside an entry", async () => {
    expect(await codeWith((v) => `v2,${v.slice(3)}`)).toBe("invalid_header");
    expect(await codeWith((v) => `x${v}`)).toBe("invalid_header");
    expect(await codeWith((v) => `x${v} v1,AAAA`)).toBe("signature_mismatch");
    expect(await codeWith((v) => `${v}=`)).toBe("signature_mismatch");
    expect(await codeWith((v) => v.slice(0, -1))).toBe("signature_mismatch");
    expect(await codeWith((v) => `v1,${v}`)).toBe("signature_mismatch");
    expect(await codeWith(() => "v1,")).toBe("signature_mismatch");
  });
});
