/**
 * A bare merchant row with one signing secret, straight into the database: what the outbox and
 * the delivery worker need to sign messages, for tests and benches that drive them without the
 * HTTP API.
 */
import type { Db } from "../../packages/service/src/db/client.js";

/** Inserts merchant `<prefix>_<now>` with `secret` and returns its id. */
export async function seedOutboxMerchant(db: Db, prefix: string, secret: string): Promise<string> {
  const id = `${prefix}_${Date.now()}`;
  await db.query("insert into merchants (id, root_domain, name) values ($1, $2, $3)", [
    id,
    `${id}.example.com`,
    prefix,
  ]);
  await db.query("insert into webhook_secrets (id, merchant_id, secret) values ($1, $2, $3)", [
    `key_${id}`,
    id,
    secret,
  ]);
  return id;
}
