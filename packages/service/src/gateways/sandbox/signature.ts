/**
 * The `sandbox-signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is inside the signed bytes so a captured notification cannot be replayed later
 * with a fresh `t`. Signing and verifying live in one file so they cannot drift apart.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "sandbox-signature";
/** Notifications whose timestamp is further than this from our clock are refused (replay window). */
export const SIGNATURE_TOLERANCE_S = 300;

/**
 * The notification secret of one gateway setting, derived from the sandbox's master secret
 * (`SVC_GATEWAY_SECRET`) and the setting's pg_code: every setting has its own, so a notification
 * signed for one setting never verifies for another, and the sandbox needs no list of them.
 * @example
 * const secret = sandboxSettingSecret(process.env.SVC_GATEWAY_SECRET!, "sandbox");
 */
export function sandboxSettingSecret(masterSecret: string, pgCode: string): string {
  return `sbx_${createHmac("sha256", masterSecret).update(`gateway-setting:${pgCode}`).digest("hex")}`;
}

function hmacHex(secret: string, timestampS: number, rawBody: Buffer | string): string {
  return createHmac("sha256", secret).update(`${timestampS}.`).update(rawBody).digest("hex");
}

/**
 * The header value for `rawBody`; also what tests use to sign their own notifications.
 * @example
 * const header = signSandboxPayload("whsec_test", Buffer.from(body));
 * await request(url, { method: "POST", body, headers: { "sandbox-signature": header } });
 */
export function signSandboxPayload(
  secret: string,
  rawBody: Buffer | string,
  timestampS = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestampS},v1=${hmacHex(secret, timestampS, rawBody)}`;
}

/**
 * True only if `header` carries a fresh timestamp and a v1 signature of `rawBody` under `secret`.
 * Compares in constant time; several v1 entries are allowed (a gateway rotating its secret).
 */
export function verifySandboxSignature(
  rawBody: Buffer,
  header: string | string[] | undefined,
  secret: string,
  nowS = Math.floor(Date.now() / 1000),
): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || !secret) return false;
  let timestampS: number | undefined;
  const signatures: string[] = [];
  for (const part of value.split(",")) {
    const [key, val] = part.trim().split("=", 2);
    if (key === "t" && val && /^\d{1,12}$/.test(val)) timestampS = Number(val);
    else if (key === "v1" && val && /^[0-9a-f]{64}$/.test(val)) signatures.push(val);
  }
  if (timestampS === undefined || signatures.length === 0) return false;
  if (Math.abs(nowS - timestampS) > SIGNATURE_TOLERANCE_S) return false;
  const expected = Buffer.from(hmacHex(secret, timestampS, rawBody), "hex");
  let matched = false;
  // Check every candidate (no early exit) so timing does not reveal which one matched.
  for (const candidate of signatures) {
    if (timingSafeEqual(expected, Buffer.from(candidate, "hex"))) matched = true;
  }
  return matched;
}
