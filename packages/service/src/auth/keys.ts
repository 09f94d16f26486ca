/**
 * API keys: `sk_…` (private, server-to-server) and `pk_…` (public, the checkout SDK). 32 random
 * bytes each; only a SHA-256 hash is stored (the key has full entropy, so a slow KDF adds nothing)
 * and the key itself is shown once, at creation.
 */
import { createHash } from "node:crypto";
import { randomToken } from "@svc/protocol";

export type KeyKind = "private" | "public";

export function generateApiKey(kind: KeyKind): string {
  return `${kind === "private" ? "sk" : "pk"}_${randomToken(32)}`;
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
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
