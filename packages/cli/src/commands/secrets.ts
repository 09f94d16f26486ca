/**
 * `svc secrets`: the key gateway credentials are sealed with. `generate-key` prints a new one (32
 * random bytes, base64, for SVC_SECRETS_KEY); `rotate` asks the running service to seal every
 * stored credential again under its current key, after the key was changed and the old one moved
 * to SVC_SECRETS_PREVIOUS_KEYS (docs/gateways.md, "Gateway settings and their credentials": rotation).
 */
import { randomBytes } from "node:crypto";
import { createApi } from "../lib/api.js";
import { resolveAdminConnection } from "../lib/connection.js";

/** A new key for SVC_SECRETS_KEY. */
export function generateKey(): string {
  return randomBytes(32).toString("base64");
}

export interface RotateResult {
  key_id: string;
  resealed: number;
  already_current: number;
  cannot_open: string[];
}

export async function rotate(
  options: { apiUrl?: string | undefined; adminToken?: string | undefined },
  env: Record<string, string | undefined>,
): Promise<RotateResult> {
  const { apiUrl, adminToken } = await resolveAdminConnection(options, env);
  const api = createApi({ apiUrl, apiKey: "" });
  return api.request<RotateResult>("POST", "/v1/admin/secrets/rotate", {
    headers: { authorization: `Bearer ${adminToken}` },
  });
}

/** What `rotate` tells a person. */
export function describeRotation(r: RotateResult): string {
  const lines = [
    `Sealed under key ${r.key_id}: ${r.resealed} credential${r.resealed === 1 ? "" : "s"} re-sealed, ${r.already_current} already under it.`,
  ];
  if (r.cannot_open.length > 0)
    lines.push(
      `Not re-sealed (sealed with a key the service does not hold; add it to SVC_SECRETS_PREVIOUS_KEYS and run again): ${r.cannot_open.join(", ")}`,
    );
  else lines.push("Every credential is under the current key: the previous keys can be removed.");
  return lines.join("\n");
}
