/**
 * KNET's side of the trandata decryption, as the kit's `decrypt` does it: hex to bytes, AES-128-CBC
 * with key = IV = the resource key, PKCS#5 unpadding. Deliberately no more: what the plaintext
 * holds is checked field by field by init.ts, as KNET does, and not by svc's decryptTrandata,
 * whose own checks the stand-in must not share. (Encryption is svc's encryptTrandata, which the
 * kit's vectors anchor.)
 */
import { createDecipheriv } from "node:crypto";

/** The plaintext, or undefined when the trandata does not decrypt with this key. */
export function knetDecrypt(hex: string, resourceKey: string): string | undefined {
  const text = hex.trim();
  if (!/^(?:[0-9a-fA-F]{32})+$/.test(text)) return undefined;
  const key = Buffer.from(resourceKey, "utf8");
  try {
    const decipher = createDecipheriv("aes-128-cbc", key, key);
    return Buffer.concat([decipher.update(Buffer.from(text, "hex")), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
