/**
 * # Stripe stand-in
 *
 * An HTTP server (node:http, loopback) that speaks Stripe's REST API, API version
 * 2026-10-28.endive (the one stripe@23.1.0 pins), for the subset svc's Stripe connector uses.
 * Tests point the official `stripe` package at it; nothing here mocks svc's adapter.
 *
 * ```ts
 * const standIn = await startStripeStandIn({ accounts: [{ secretKey: "sk_test_a", webhookSecret: "whsec_a" }] });
 * const stripe = new Stripe("sk_test_a", { host: "127.0.0.1", port: standIn.port, protocol: "http" });
 * const pi = await stripe.paymentIntents.create({ amount: 500, currency: "eur", confirm: true,
 *   payment_method: "pm_card_visa", return_url: "https://shop.example/back" });
 * await standIn.close();
 * ```
 *
 * ## What it implements, and from which document
 * - Endpoints (docs.stripe.com/api): POST/GET /v1/payment_intents, GET/POST …/:id,
 *   …/:id/confirm, …/:id/capture, …/:id/cancel; POST/GET /v1/refunds, GET /v1/refunds/:id;
 *   GET /v1/charges/:id (`refunds` only with `expand[]=refunds`, as since 2022-11-15);
 *   GET /v1/events, GET /v1/events/:id. Form bodies in bracket notation (`a[b]`, `a[]`, `a[0]`),
 *   JSON answers with `Request-Id` and `Stripe-Version` headers; `expand[]` for the ids the
 *   objects hold. Lists (docs.stripe.com/api/pagination): newest first, `limit` 1–100 (10),
 *   `starting_after`, `ending_before`, `created[gt|gte|lt|lte]`.
 * - Authentication (…/api/authentication): `Bearer sk_…` or Basic with the key as user; 401 in
 *   Stripe's words otherwise. Objects belong to the account whose key made them; another
 *   account's id is `resource_missing`.
 * - Objects are built as complete `Stripe.PaymentIntent`, `Stripe.Charge`, `Stripe.Refund`,
 *   `Stripe.PaymentMethod`, `Stripe.Event` values, so tsc checks them against the package.
 * - Parameters (…/error-codes): each endpoint's table is typed `Record<keyof Stripe.XParams, …>`;
 *   unknown → `parameter_unknown`, missing → `parameter_missing`, mistyped →
 *   `parameter_invalid_integer` / `parameter_invalid_empty`, enums and booleans as Stripe words
 *   them. Parameters Stripe takes that the stand-in does not model (shipping, transfer_data,
 *   payment_method_options, mandates, Connect, customers' balances …) are refused with a message
 *   saying so, never silently ignored. `payment_method_data[card]` (raw card data) is accepted
 *   although the package's types omit it; `rawCardData: false` answers Stripe's 402 for accounts
 *   without raw card data access.
 * - Amounts (docs.stripe.com/currencies): zero-decimal and three-decimal currencies (last digit
 *   0), ISK divisible by 100 (support.stripe.com, fractional ISK), the minimum charge amounts of
 *   the settlement currencies Stripe lists, the eight-digit maximum, lowercase currency codes.
 * - Cards (docs.stripe.com/testing): the brand cards, declines 0002, 9995, 9987, 9979, 0069,
 *   0127, 0119 with Stripe's codes and wording, Luhn / expiry / CVC checks, 3-D Secure cards
 *   3184, 3155, 3220 and 1629 (declined after authentication), refund cards 7726 (pending then
 *   succeeded) and 5126 (succeeded then failed), Stripe's `pm_card_…` ids (see cards.ts). Any
 *   other number that passes Luhn is a live card, declined `live_mode_test_card`.
 * - Payment lifecycle (…/payments/paymentintents/lifecycle): default capture `automatic_async`,
 *   `automatic_payment_methods` on by default (2023-08-16), so confirming needs a `return_url`
 *   unless redirects are off or only cards are allowed; 3-D Secure gives `requires_action` with
 *   `redirect_to_url` to GET /standin/3ds/:id (HTML, no script, "Complete authentication" /
 *   "Fail authentication"), whose POST redirects (303) to the return_url with
 *   `payment_intent`, `payment_intent_client_secret`, `redirect_status`. Manual capture, partial
 *   capture (the rest released: since 2025-03-31.basil no Refund, the charge's `amount_captured`
 *   says what was taken and `amount_refunded` stays), cancel from the states Stripe allows (no
 *   Refund, no charge.refunded since basil), `payment_intent_unexpected_state` otherwise.
 * - Refunds (…/refunds): of captured charges only, at most what remains; over →
 *   "Refund amount (…) is greater than unrefunded amount on charge (…)", nothing left →
 *   `charge_already_refunded`. `dashboardRefund()` is an operator's refund: no metadata, events
 *   with `request.id` null. `dashboardCapture()` and `dashboardCancel()` are an operator's capture
 *   and cancel the same way (the API's checks and events; no metadata written, no reason given).
 * - Idempotency (…/api/idempotent_requests): per account; replays keep status and body and add
 *   `Idempotent-Replayed: true`; other parameters or another endpoint → `idempotency_error`; a key
 *   still running → 409 `idempotency_key_in_use`; errors found before execution (parameters,
 *   card data, validation) save nothing; keys expire after 24 h.
 * - Events and webhooks (…/api/events, …/webhooks): payment_intent.created, .requires_action,
 *   .succeeded, .amount_capturable_updated, .payment_failed, .canceled; charge.succeeded,
 *   .failed, .captured, .refunded, .refund.updated; refund.created, .updated, .failed (sent for
 *   all refunds since 2024-10-28.acacia). Delivered as pretty JSON signed `t=…,v1=…`
 *   (HMAC-SHA256 of "t.payload" with the whsec secret), retried after `webhookRetryDelaysMs`,
 *   independently (so possibly out of order, as on Stripe).
 * - Faults for tests: lost answers (performed, then the socket destroyed), injected `api_error`
 *   5xx (nothing done, nothing saved), delays (held while the idempotency key is taken).
 *
 * ## Choices where Stripe's documents are silent
 * Event order within one change (listed above, e.g. refund.created before charge.refunded);
 * the three-decimal refusal's code (`invalid_charge_amount`, modelled on the ISK one); the
 * over-capture message; refunds of uncaptured charges refused (`charge_not_refundable`) rather
 * than releasing them; a past expiry in the current year is `invalid_expiry_month`; card-data
 * refusals are treated as validation (not saved for idempotency); the 3DS page's own redirect
 * uses `redirect_status=failed` whenever the PaymentIntent is back to requires_payment_method.
 *
 * ## What it deliberately does not do
 * Anything but cards (wallets, bank debits, redirects of other methods), Customers and saved
 * cards, SetupIntents, Checkout, disputes, payouts and balances (balance transaction ids are
 * placeholders), Connect, Radar rules, multicapture, incremental authorisation, overcapture,
 * `payment_intents/search` (answered 404), PaymentIntent updates, refund cancel/update, other
 * API versions (refused), live mode, Stripe's real retry schedule (days), minimum amounts of
 * currencies that need conversion, webhook endpoint objects (one URL per account instead),
 * rate limits, and the `use_stripe_sdk` flow's contents (Stripe.js-only; a placeholder).
 */
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
