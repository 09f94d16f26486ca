/**
 * API keys: `sk_…` (private, server-to-server) and `pk_…` (public, the checkout SDK). 32 random
 * bytes each; only a SHA-256 hash is stored (the key has full entropy, so a slow KDF adds nothing)
 * and the key itself is shown once, at creation.
 */
import * as crypto from "node:crypto";
import { randomToken } from "@svc/protocol";

export type KeyKind = "private" | "public";

export function generateApiKey(kind: KeyKind): string {
  return `${kind === "private" ? "sk" : "pk"}_${randomToken(32)}`;
}

// Node's one-shot hash (20.12+) costs about half of createHash's object and stream setup, on
// every authenticated request; older runtimes take createHash. Both give the same hex digest.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text).digest("hex");

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** What a dashboard shows of a key: its prefix and last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}

export function keyKindOf(key: string): KeyKind | undefined {
  if (key.startsWith("sk_")) return "private";
  if (key.startsWith("pk_")) return "public";
  return undefined;
}
