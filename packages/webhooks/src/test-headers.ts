import { canonicalJson } from "./canonical-json.js";
import { toBase64, toHex } from "./encoding.js";
import { signPayload, signWebhook, toUnixSeconds } from "./sign.js";

/**
 * Web Crypto for random ids: the global `crypto`, or, on Node 18 (no global `crypto` without a
 * flag), node:crypto's `webcrypto`, imported on first use. The specifier is computed so that
 * bundlers targeting browsers neither resolve nor warn about it.
 */
const webCrypto = (): Crypto | Promise<Crypto> =>
  globalThis.crypto ??
  import(/* webpackIgnore: true */ /* @vite-ignore */ ["node", "crypto"].join(":")).then(
    (m: { webcrypto: Crypto }) => m.webcrypto,
  );

/**
 * Options of {@link generateTestHeaders}.
 *
 * @example
 * await generateTestHeaders(payload, newSecret, { id: "msg_fixed", timestamp: 1_800_000_000, extraSecrets: [oldSecret] });
 */
export interface TestHeadersOptions {
  /** `webhook-id`; a fresh random `msg_…` id by default. */
  id?: string;
  /** `webhook-timestamp` in unix seconds (or a Date); now by default. */
  timestamp?: number | Date;
  /**
   * Extra secrets to sign the headers with as well, to test a rotation. The payload field is
   * always signed with `secret`.
   */
  extraSecrets?: readonly string[];
}

/**
 * A signed test request: send `body` with `headers`.
 *
 * @example
 * const { body, headers }: TestWebhook = await generateTestHeaders(samplePayload, "whsec_…");
 * await fetch("http://localhost:3000/webhooks/svc", { method: "POST", body, headers });
 */
export interface TestWebhook<P extends object = Record<string, unknown>> {
  /** The payload with its `signature` field filled in. */
  payload: P & { signature: string };
  /** The JSON body, exactly as signed. */
  body: string;
  headers: { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };
}

/**
 * Signs a payload the way the service does, for your tests: fills in its `signature` field,
 * serialises it and returns Standard Webhooks headers for that body.
 *
 * @example
 * const { body, headers } = await generateTestHeaders(samplePayload, "whsec_…");
 * const res = await fetch("http://localhost:3000/webhooks", { method: "POST", body, headers });
 */
export async function generateTestHeaders<P extends object>(
  payload: P,
  secret: string,
  opts: TestHeadersOptions = {},
): Promise<TestWebhook<P>> {
  const signed = { ...payload, signature: await signPayload(payload, secret) };
  // Canonical JSON, as svc sends it: receivers can then check the payload signature on the
  // body's own text (see verifyWebhook) and the test body matches a real one byte for byte.
  const body = canonicalJson(signed);
  const id = opts.id ?? `msg_${toHex((await webCrypto()).getRandomValues(new Uint8Array(12)))}`;
  const seconds = toUnixSeconds(opts.timestamp ?? new Date());
  const signature = await signWebhook({
    id,
    timestamp: seconds,
    body,
    secrets: [secret, ...(opts.extraSecrets ?? [])],
  });
  return {
    payload: signed,
    body,
    headers: { "webhook-id": id, "webhook-timestamp": String(seconds), "webhook-signature": signature },
  };
}

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes from the platform's CSPRNG (the
 * global `crypto`: on Node 18, run with `--experimental-global-webcrypto`).
 *
 * @example
 * const secret = generateSecret(); // "whsec_3q2+7w…="
 */
export function generateSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}
