/** SQL of gateway settings' changes (their creation and reads are in merchants.repo.ts). */
import type { Queryable } from "../db/client.js";
import type { GatewaySettingRow } from "../merchants/merchants.repo.js";

/** Fields an update may change; undefined leaves one as it is. */
export interface GatewaySettingPatch {
  name?: string | undefined;
  operation?: "purchase" | "authorize" | undefined;
  currencies?: string[] | undefined;
  api_base_url?: string | null | undefined;
  credentials?: string | undefined;
  credentials_hint?: Record<string, string> | undefined;
}

export const gatewaySettingsRepo = {
  /** Applies `patch` and bumps `updated_at` (processes rebuild the setting's adapter). */
  async update(q: Queryable, id: string, patch: GatewaySettingPatch): Promise<GatewaySettingRow> {
    const rows = await q.query<GatewaySettingRow>(
      `update gateway_settings set
          name = coalesce($2, name), operation = coalesce($3, operation), currencies = coalesce($4, currencies),
          api_base_url = case when $5 then $6 else api_base_url end,
          credentials = coalesce($7, credentials), credentials_hint = coalesce($8, credentials_hint),
          updated_at = clock_timestamp()
        where id = $1 returning *`,
      [
        id,
        patch.name ?? null,
        patch.operation ?? null,
        patch.currencies ?? null,
        patch.api_base_url !== undefined,
        patch.api_base_url ?? null,
        patch.credentials ?? null,
        patch.credentials_hint ? JSON.stringify(patch.credentials_hint) : null,
      ],
    );
    return rows[0]!;
  },
  /** Every setting with stored credentials (for rotation). */
  async withCredentials(q: Queryable) {
    return q.query<GatewaySettingRow & { credentials: string }>(
      "select * from gateway_settings where credentials is not null order by id",
    );
  },
  /** Replaces a setting's credentials hint if its credentials are still `sealed`. */
  async rehint(q: Queryable, id: string, sealed: string, hint: Record<string, string>): Promise<boolean> {
    const rows = await q.query(
      "update gateway_settings set credentials_hint = $3 where id = $1 and credentials = $2 returning 1",
      [id, sealed, JSON.stringify(hint)],
    );
    return rows.length > 0;
  },
  /** Replaces a setting's sealed credentials if they are still `previous`; false when they changed meanwhile. */
  async reseal(q: Queryable, id: string, previous: string, sealed: string): Promise<boolean> {
    const rows = await q.query(
      "update gateway_settings set credentials = $3 where id = $1 and credentials = $2 returning 1",
      [id, previous, sealed],
    );
    return rows.length > 0;
  },
};
