/** (module comment written below) */
export { startStripeStandIn, ASYNC_REFUND_DELAY_MS } from "./server.js";
export { signPayload, WEBHOOK_RETRY_DELAYS_MS, type WebhookDelivery } from "./webhooks.js";
export { EVENT_API_VERSION } from "./events.js";
export type {
  StripeStandIn,
  StripeStandInAccount,
  StripeStandInFault,
  StripeStandInOptions,
  StripeRequestRecord,
} from "./types.js";
