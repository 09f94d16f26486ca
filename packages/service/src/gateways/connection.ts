/**
 * A gateway setting as the adapters see it, and its credentials: sealed at rest
 * (secrets/keyring.ts), opened only here, when an adapter is built, and held only in memory.
 */
import { AppError } from "../http/problem.js";
import type { GatewaySettingRow } from "../merchants/merchants.repo.js";
import { type Keyring, SecretsError } from "../secrets/keyring.js";

/** What an adapter is built from. */
export type GatewayConnection = Pick<
  GatewaySettingRow,
  "id" | "pg_code" | "kind" | "notification_secret" | "credentials" | "api_base_url" | "updated_at"
>;

/** Where a setting's sealed credentials live: bound into the ciphertext, so it opens only there. */
export function credentialsContext(settingId: string): string {
  return `gateway_settings/${settingId}/credentials`;
}

/**
 * The setting's credentials in plain text (in memory only).
 * @throws AppError 503 gateway_credentials_unavailable — none saved, no key, or not the key they were sealed with
 */
export function openCredentials(
  keyring: Keyring | undefined,
  setting: GatewayConnection,
): Record<string, string> {
  if (!setting.credentials)
    throw new AppError(
      "gateway_credentials_unavailable",
      `The gateway setting ${setting.pg_code} has no credentials; save them with PATCH /v1/admin/merchants/{merchant_id}/gateways/${setting.pg_code} or on the dashboard's Gateways page.`,
    );
  try {
    if (!keyring) throw new SecretsError("secrets_key_missing", "Set SVC_SECRETS_KEY.");
    return JSON.parse(keyring.open(setting.credentials, credentialsContext(setting.id))) as Record<
      string,
      string
    >;
  } catch (error) {
    const reason = error instanceof SecretsError ? error.message : "they are not readable";
    throw new AppError(
      "gateway_credentials_unavailable",
      `The credentials of gateway setting ${setting.pg_code} cannot be opened: ${reason}`,
    );
  }
}
