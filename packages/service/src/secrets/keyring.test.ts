import { describe, expect, it } from "vitest";
import { createKeyring, generateSecretsKey, parseSecretsKey, SecretsError } from "./keyring.js";

const SECRET = "sk_test_51HsEcretValue0123456789";
const CONTEXT = "gateway_settings/gws_1/credentials";

function failure(fn: () => unknown): SecretsError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SecretsError) return error;
    throw error;
  }
  throw new Error("expected a SecretsError");
}

describe("keyring", () => {
  it("seals and opens; the sealed value names its key and shows nothing of the secret", () => {
    const keyring = createKeyring(generateSecretsKey());
    const sealed = keyring.seal(SECRET, CONTEXT);
    expect(sealed).toMatch(/^svc1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(keyring.keyIdOf(sealed)).toBe(keyring.currentKeyId);
    expect(sealed).not.toContain(SECRET.slice(8));
    expect(keyring.open(sealed, CONTEXT)).toBe(SECRET);
    // A fresh nonce each time: the same secret never seals to the same text.
    expect(keyring.seal(SECRET, CONTEXT)).not.toBe(sealed);
  });

  it("refuses a value moved to another place, changed, or truncated", () => {
    const keyring = createKeyring(generateSecretsKey());
    const sealed = keyring.seal(SECRET, CONTEXT);
    expect(failure(() => keyring.open(sealed, "gateway_settings/gws_2/credentials")).code).toBe(
      "secrets_corrupt",
    );
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    const changed = [...parts.slice(0, 3), body.toString("base64url")].join(".");
    expect(failure(() => keyring.open(changed, CONTEXT)).code).toBe("secrets_corrupt");
    expect(failure(() => keyring.open(sealed.slice(0, 40), CONTEXT)).code).toBe("secrets_corrupt");
    expect(failure(() => keyring.open("plain text", CONTEXT)).code).toBe("secrets_corrupt");
  });

  it("opens what an earlier key sealed while sealing with the new one (rotation)", () => {
    const oldKey = generateSecretsKey();
    const newKey = generateSecretsKey();
    const sealedOld = createKeyring(oldKey).seal(SECRET, CONTEXT);
    const rotated = createKeyring(newKey, [oldKey]);
    expect(rotated.open(sealedOld, CONTEXT)).toBe(SECRET);
    const resealed = rotated.seal(SECRET, CONTEXT);
    expect(rotated.keyIdOf(resealed)).not.toBe(rotated.keyIdOf(sealedOld));
    // Without the old key, its values say which key they need (by id), never the key.
    const error = failure(() => createKeyring(newKey).open(sealedOld, CONTEXT));
    expect(error.code).toBe("secrets_key_unknown");
    expect(error.message).toContain(rotated.keyIdOf(sealedOld)!);
    expect(error.message).toContain("SVC_SECRETS_PREVIOUS_KEYS");
    expect(error.message).not.toContain(oldKey);
  });

  it("without a key it cannot seal, and says what to set", () => {
    const keyring = createKeyring(undefined);
    expect(keyring.currentKeyId).toBeUndefined();
    const error = failure(() => keyring.seal(SECRET, CONTEXT));
    expect(error.code).toBe("secrets_key_missing");
    expect(error.message).toContain("SVC_SECRETS_KEY");
  });

  it("refuses a key that is not 32 bytes of base64, without echoing it", () => {
    for (const bad of ["short", Buffer.alloc(16).toString("base64"), `${"A".repeat(43)}!`]) {
      const error = failure(() => parseSecretsKey(bad));
      expect(error.code).toBe("secrets_key_invalid");
      expect(error.message).toContain("SVC_SECRETS_KEY");
      expect(error.message).not.toContain(bad);
    }
    expect(parseSecretsKey(generateSecretsKey())).toHaveLength(32);
  });
});
