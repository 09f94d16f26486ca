/**
 * The merchant's webhook signing secret: Standard Webhooks' `whsec_` + 32 random bytes, base64.
 * Every secret is made here, and base64 has no space: the delivery claim passes a merchant's
 * secrets joined by spaces (delivery.repo.ts, `claimed`).
 */
import { randomBytes } from "node:crypto";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * SQL: the signing secrets in force (not expired) of the merchant `merchantId` names (a column or
 * a parameter), newest first, as a text array — what every signature is made with (one `v1,`
 * entry each during a rotation's overlap).
 */
export const secretsInForce = (merchantId: string) => `array(select s.secret from webhook_secrets s
         where s.merchant_id = ${merchantId} and (s.expires_at is null or s.expires_at > now())
         order by s.created_at desc, s.id desc)`;
