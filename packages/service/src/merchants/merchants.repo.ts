import type { GatewayKind } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import { API_KEYS_CHANNEL } from "../http/api-keys-channel.js";

export interface MerchantRow {
  id: string;
  root_domain: string;
  name: string;
  error_reporting_enabled: boolean;
  created_at: Date;
}

export interface GatewaySettingRow {
  id: string;
  merchant_id: string;
  pg_code: string;
  name: string;
  kind: GatewayKind;
  operation: "purchase" | "authorize";
  currencies: string[];
  /** The sandbox's signing secret of this setting (null for real gateways, whose secrets are credentials). */
  notification_secret: string | null;
  wallet_a_merchant_identifier: string | null;
  /** The gateway credentials, sealed (secrets/keyring.ts); null for the sandbox kinds. */
  credentials: string | null;
  /** What may be shown of the credentials: field → last characters, or "set". */
  credentials_hint: Record<string, string> | null;
  /** The gateway's API base URL when not its production host (KNET's test host, a stand-in). */
  api_base_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export const merchantsRepo = {
  async insertMerchant(
    q: Queryable,
    m: { id: string; rootDomain: string; name: string },
  ): Promise<MerchantRow> {
    const rows = await q.query<MerchantRow>(
      "insert into merchants (id, root_domain, name) values ($1, $2, $3) returning *",
      [m.id, m.rootDomain, m.name],
    );
    return rows[0]!;
  },
  async findMerchant(q: Queryable, id: string): Promise<MerchantRow | undefined> {
    return (await q.query<MerchantRow>("select * from merchants where id = $1", [id]))[0];
  },
  async findMerchantByDomain(q: Queryable, rootDomain: string): Promise<MerchantRow | undefined> {
    return (await q.query<MerchantRow>("select * from merchants where root_domain = $1", [rootDomain]))[0];
  },
  async insertKey(
    q: Queryable,
    k: {
      id: string;
      merchantId: string;
      kind: "private" | "public";
      hash: string;
      hint: string;
      label: string;
    },
  ): Promise<void> {
    await q.query(
      "insert into api_keys (id, merchant_id, kind, key_hash, key_hint, label) values ($1, $2, $3, $4, $5, $6)",
      [k.id, k.merchantId, k.kind, k.hash, k.hint, k.label],
    );
  },
  async listKeys(q: Queryable, merchantId: string) {
    return q.query<{
      id: string;
      kind: string;
      key_hint: string;
      label: string;
      created_at: Date;
      revoked_at: Date | null;
    }>(
      "select id, kind, key_hint, label, created_at, revoked_at from api_keys where merchant_id = $1 order by created_at",
      [merchantId],
    );
  },
  /**
   * Revokes a key and, on commit, tells every process to forget it (see API_KEYS_CHANNEL).
   * Returns the key's hash, or undefined for an unknown key.
   */
  async revokeKey(q: Queryable, merchantId: string, keyId: string): Promise<string | undefined> {
    const rows = await q.query<{ key_hash: string }>(
      `with revoked as (
         update api_keys set revoked_at = coalesce(revoked_at, now()) where merchant_id = $1 and id = $2
         returning id, key_hash)
       select key_hash, pg_notify($3, key_hash) from revoked`,
      [merchantId, keyId, API_KEYS_CHANNEL],
    );
    return rows[0]?.key_hash;
  },
  async insertUser(
    q: Queryable,
    u: {
      merchantId: string;
      username: string;
      email: string;
      firstName: string | null;
      lastName: string | null;
      phone: string | null;
      passwordHash: string;
      permissions: string[];
    },
  ) {
    const rows = await q.query<{ id: number; username: string; email: string; permissions: string[] }>(
      `insert into users (merchant_id, username, email, first_name, last_name, phone, password_hash, permissions)
       values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (username) do nothing
       returning id, username, email, first_name, last_name, phone, permissions`,
      [u.merchantId, u.username, u.email, u.firstName, u.lastName, u.phone, u.passwordHash, u.permissions],
    );
    return rows[0];
  },
  async insertGateway(
    q: Queryable,
    g: Omit<
      GatewaySettingRow,
      | "wallet_a_merchant_identifier"
      | "credentials"
      | "credentials_hint"
      | "api_base_url"
      | "created_at"
      | "updated_at"
    > &
      Partial<
        Pick<
          GatewaySettingRow,
          "wallet_a_merchant_identifier" | "credentials" | "credentials_hint" | "api_base_url"
        >
      >,
  ) {
    const rows = await q.query<GatewaySettingRow>(
      `insert into gateway_settings (id, merchant_id, pg_code, name, kind, operation, currencies, notification_secret,
         wallet_a_merchant_identifier, credentials, credentials_hint, api_base_url)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (pg_code) do nothing returning *`,
      [
        g.id,
        g.merchant_id,
        g.pg_code,
        g.name,
        g.kind,
        g.operation,
        g.currencies,
        g.notification_secret,
        g.wallet_a_merchant_identifier ?? null,
        g.credentials ?? null,
        g.credentials_hint ? JSON.stringify(g.credentials_hint) : null,
        g.api_base_url ?? null,
      ],
    );
    return rows[0];
  },
  async listGateways(q: Queryable, merchantId: string): Promise<GatewaySettingRow[]> {
    return q.query<GatewaySettingRow>(
      "select * from gateway_settings where merchant_id = $1 order by created_at, pg_code",
      [merchantId],
    );
  },
  async findGatewayByCode(q: Queryable, pgCode: string): Promise<GatewaySettingRow | undefined> {
    return (
      await q.query<GatewaySettingRow>("select * from gateway_settings where pg_code = $1", [pgCode])
    )[0];
  },
  /** A live (not disabled) user by username, with the password hash, for sign-in checks. */
  async findUserForSignIn(q: Queryable, username: string): Promise<UserWithSecret | undefined> {
    return (
      await q.query<UserWithSecret>(
        `select id, merchant_id, username, email, first_name, last_name, phone, permissions, password_hash
           from users where username = $1 and disabled_at is null`,
        [username],
      )
    )[0];
  },
};

export interface UserWithSecret {
  id: number;
  merchant_id: string;
  username: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  permissions: string[];
  password_hash: string;
}
