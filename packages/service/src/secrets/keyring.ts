/**
 * Secrets at rest (gateway credentials): AES-256-GCM under a 32-byte key from SVC_SECRETS_KEY.
 * Each sealed value names the key that sealed it (a key id derived from the key, never the key),
 * so a new key can be introduced while the old one still opens what it sealed, and
 * `svc secrets rotate` re-seals everything under the new key. The sealed value is bound to where
 * it is stored (`context`, used as GCM's additional data): a ciphertext copied into another row
 * or field does not open there.
 *
 * Format: `svc1.<key id>.<base64url 12-byte nonce>.<base64url ciphertext‖16-byte tag>`.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "svc1";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Why a secret could not be sealed or opened; its message never contains a secret. */
export class SecretsError extends Error {
  readonly code: "secrets_key_missing" | "secrets_key_unknown" | "secrets_corrupt" | "secrets_key_invalid";
  constructor(code: SecretsError["code"], message: string) {
    super(message);
    this.name = "SecretsError";
    this.code = code;
  }
}

/** The key id of a key: 8 hex digits of a hash of it (names the key, reveals nothing usable). */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("svc secrets key id\0").update(key).digest("hex").slice(0, 8);
}

/** Decodes a base64 (or base64url) 32-byte key, with an error that says what to set. */
export function parseSecretsKey(encoded: string, variable = "SVC_SECRETS_KEY"): Buffer {
  const key = Buffer.from(encoded.trim(), "base64");
  if (key.length !== KEY_BYTES || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded.trim()))
    throw new SecretsError(
      "secrets_key_invalid",
      `${variable} must be ${KEY_BYTES} random bytes in base64 (44 characters); make one with \`svc secrets generate-key\` or \`openssl rand -base64 32\`.`,
    );
  return key;
}

/** A new random key, base64: what `svc dev` keeps in its data directory and `svc secrets generate-key` prints. */
export function generateSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString("base64");
}

/**
 * The keys this process holds: the current one (seals) and earlier ones (open only).
 * @example
 * const keyring = createKeyring(process.env.SVC_SECRETS_KEY, []);
 * const sealed = keyring.seal("sk_live_…", "gateway_settings/gws_1/credentials");
 * keyring.open(sealed, "gateway_settings/gws_1/credentials"); // "sk_live_…"
 */
export interface Keyring {
  /** The key id new values are sealed with; undefined when no key is configured. */
  readonly currentKeyId: string | undefined;
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
  /** The key id a sealed value names (undefined for something that is not a sealed value). */
  keyIdOf(sealed: string): string | undefined;
}

export function createKeyring(current: string | undefined, previous: readonly string[] = []): Keyring {
  const keys = new Map<string, Buffer>();
  for (const [i, encoded] of previous.entries()) {
    const key = parseSecretsKey(encoded, `SVC_SECRETS_PREVIOUS_KEYS (entry ${i + 1})`);
    keys.set(keyIdOf(key), key);
  }
  const currentKey = current ? parseSecretsKey(current) : undefined;
  const currentKeyId = currentKey ? keyIdOf(currentKey) : undefined;
  if (currentKey && currentKeyId) keys.set(currentKeyId, currentKey);

  return {
    currentKeyId,
    seal(plain, context) {
      if (!currentKey || !currentKeyId)
        throw new SecretsError(
          "secrets_key_missing",
          "No secrets key is configured, so credentials cannot be stored. Set SVC_SECRETS_KEY to 32 random bytes in base64 (`svc secrets generate-key` makes one) and restart the service.",
        );
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", currentKey, nonce);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, currentKeyId, nonce.toString("base64url"), body.toString("base64url")].join(".");
    },
    open(sealed, context) {
      const parts = sealed.split(".");
      if (parts.length !== 4 || parts[0] !== VERSION)
        throw new SecretsError("secrets_corrupt", "A stored secret is not in svc's sealed format.");
      const [, keyId, nonceText, bodyText] = parts as [string, string, string, string];
      const key = keys.get(keyId);
      if (!key)
        throw new SecretsError(
          "secrets_key_unknown",
          `A stored secret was sealed with key ${keyId}, which this process does not hold. ` +
            (currentKeyId
              ? "Add that key to SVC_SECRETS_PREVIOUS_KEYS (or set it as SVC_SECRETS_KEY) and restart."
              : "Set SVC_SECRETS_KEY to the key the credentials were saved with and restart."),
        );
      const nonce = Buffer.from(nonceText, "base64url");
      const body = Buffer.from(bodyText, "base64url");
      if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES)
        throw new SecretsError("secrets_corrupt", "A stored secret is truncated.");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, nonce);
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        throw new SecretsError(
          "secrets_corrupt",
          "A stored secret does not open: it was changed, or moved from where it was stored.",
        );
      }
    },
    keyIdOf(sealed) {
      const parts = sealed.split(".");
      return parts.length === 4 && parts[0] === VERSION ? parts[1] : undefined;
    },
  };
}
