/** The merchant's webhook signing secret: Standard Webhooks' `whsec_` + 32 random bytes, base64. */
import { randomBytes } from "node:crypto";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
