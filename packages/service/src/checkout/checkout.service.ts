/**
 * The Checkout API: creating the parent transaction (the payment) and reading it back in the
 * shape the SDK needs. Payment attempts live in payment-flow.ts.
 */
import {
  formatAmount,
  isCurrency,
  type Language,
  newId,
  parseAmount,
  parseDurationSeconds,
  type TransactionType,
} from "@svc/protocol";
import type { ServiceConfig } from "../config.js";
import type { Db, Queryable } from "../db/client.js";
import { amountProblemFor } from "../gateways/capabilities.js";
import type { GatewayRegistry } from "../gateways/registry.js";
import { AppError, FieldErrors } from "../http/problem.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import { urlProblem } from "../webhooks/settings.service.js";
import type { PaymentsService } from "../payments/payments.service.js";
import { checkoutRepo, type TransactionRow } from "./checkout.repo.js";
import { createHostedPageService } from "./hosted-page.service.js";
import { createPaymentFlow } from "./payment-flow.js";
import { paymentMethodsFor } from "./payment-methods.js";
import { noTransaction } from "../http/not-found.js";

/** Limits of `metadata` (as other payment platforms set them: 50 keys, 40-character keys, 500-character values). */
export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;
export interface CreateCheckoutInput {
  type: TransactionType;
  pg_codes: string[];
  amount: string;
  currency_code: string;
  order_no?: string;
  customer_id?: string;
  customer_email?: string;
  customer_phone?: string;
  customer_first_name?: string;
  customer_last_name?: string;
  redirect_url?: string;
  metadata?: Record<string, unknown>;
  webhook_url?: string;
  language?: Language;
  expiration_time?: string | number;
  include_sdk_setup_preload?: boolean;
}

const MIN_EXPIRATION_SECONDS = 60;
const MAX_EXPIRATION_SECONDS = 30 * 24 * 3600;

export interface CheckoutDeps {
  config: ServiceConfig;
  gateways: GatewayRegistry;
  now: () => Date;
  payments: PaymentsService;
}

/** A `redirect_url`'s problem: it must be http(s), and carry no user name or password (browsers show them). */
function redirectUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http:// or https:// URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return "must be an absolute http:// or https:// URL";
  if (url.username || url.password) return "must not carry a user name or password";
  return undefined;
}

export function createCheckoutService(db: Db, deps: CheckoutDeps) {
  const { config, gateways, now } = deps;

  async function details(q: Queryable, tx: TransactionRow) {
    const settings = await merchantsRepo.listGateways(q, tx.merchant_id);
    const inTx = settings.filter((s) => tx.pg_codes.includes(s.pg_code));
    const cards = tx.customer_id
      ? await checkoutRepo.savedCards(q, tx.merchant_id, tx.customer_id, tx.pg_codes)
      : [];
    const walletA = inTx.find((s) => s.wallet_a_merchant_identifier);
    return {
      session_id: tx.session_id,
      order_no: tx.order_no,
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      currency_code: tx.currency_code,
      state: tx.state,
      operation: tx.operation,
      type: tx.type,
      language: tx.language,
      customer_id: tx.customer_id,
      customer_phone: tx.customer_phone,
      expires_at: tx.expires_at.toISOString(),
      payment_methods: paymentMethodsFor(tx, inTx),
      cards: cards.map((c) => ({
        token: c.token,
        brand: c.brand,
        last4: c.last4,
        expiry: c.expiry,
        pg_code: c.pg_code,
      })),
      wallet_a: walletA
        ? { merchant_identifier: walletA.wallet_a_merchant_identifier, pg_code: walletA.pg_code }
        : null,
    };
  }

  /** Loads a merchant's transaction, turning it `expired` first when its time is up. */
  async function load(merchantId: string, sessionId: string): Promise<TransactionRow> {
    await deps.payments.expireDue(sessionId);
    const tx = await checkoutRepo.find(db, merchantId, sessionId);
    if (!tx) throw noTransaction({ sessionId });
    return tx;
  }

  /** `metadata`'s limits, each broken one named (keys are the merchant's: quoted as given). */
  function checkMetadata(
    value: Record<string, unknown> | undefined,
    errors: FieldErrors,
  ): Record<string, string> {
    if (value === undefined) return {};
    const keys = Object.keys(value);
    if (keys.length > METADATA_MAX_KEYS)
      errors.add("metadata", `has ${keys.length} keys: keep at most ${METADATA_MAX_KEYS}`);
    const out: Record<string, string> = {};
    for (const key of keys.slice(0, METADATA_MAX_KEYS)) {
      const v = value[key];
      if (key.length === 0 || key.length > METADATA_MAX_KEY_LENGTH)
        errors.add(
          "metadata",
          `key "${key.slice(0, 50)}" must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`,
        );
      else if (typeof v !== "string")
        errors.add(
          "metadata",
          `value of "${key}" must be a string (send numbers and flags as text, e.g. "42")`,
        );
      else if (v.length > METADATA_MAX_VALUE_LENGTH)
        errors.add(
          "metadata",
          `value of "${key}" has ${v.length} characters: keep at most ${METADATA_MAX_VALUE_LENGTH}`,
        );
      else out[key] = v;
    }
    return out;
  }

  async function create(merchantId: string, input: CreateCheckoutInput, createdVia: "api" | "dashboard") {
    const errors = new FieldErrors();
    let amountMinor = 0;
    if (!isCurrency(input.currency_code)) {
      errors.add("currency_code", "must be an ISO 4217 alpha-3 code in capitals, such as USD, KWD or JPY");
    } else {
      const parsed = parseAmount(input.amount, input.currency_code);
      if (parsed.ok) amountMinor = parsed.minor;
      else errors.add("amount", parsed.message);
    }
    for (const field of [
      "order_no",
      "customer_id",
      "customer_email",
      "customer_phone",
      "customer_first_name",
      "customer_last_name",
    ] as const) {
      const value = input[field];
      if (value !== undefined && value.trim() === "")
        errors.add(field, "must not be blank; leave it out instead");
    }
    if (new Set(input.pg_codes).size !== input.pg_codes.length)
      errors.add("pg_codes", "must not list a pg_code twice");
    const redirectProblem =
      input.redirect_url === undefined ? undefined : redirectUrlProblem(input.redirect_url);
    if (redirectProblem) errors.add("redirect_url", redirectProblem);
    // The transaction's own webhook URL follows the webhook settings' rules (no credentials in it,
    // no #fragment, no private address unless SVC_WEBHOOK_ALLOW_PRIVATE): the delivery log shows it.
    const webhookProblem =
      input.webhook_url === undefined ? undefined : urlProblem(input.webhook_url, config.webhookAllowPrivate);
    if (webhookProblem) errors.add("webhook_url", webhookProblem);
    if (input.customer_email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.customer_email)) {
      errors.add("customer_email", "must be an email address such as name@example.com");
    }
    if (input.customer_phone !== undefined && !/^\+?[0-9 ()-]{4,32}$/.test(input.customer_phone)) {
      errors.add(
        "customer_phone",
        "must be a phone number of digits, optionally starting with +, e.g. +96550000000",
      );
    }
    const metadata = checkMetadata(input.metadata, errors);
    let expirationSeconds = config.defaultExpirationSeconds;
    if (input.expiration_time !== undefined) {
      const seconds = parseDurationSeconds(input.expiration_time);
      if (seconds === undefined || seconds < MIN_EXPIRATION_SECONDS || seconds > MAX_EXPIRATION_SECONDS) {
        errors.add(
          "expiration_time",
          'must be a duration between 1 minute and 30 days: ISO 8601 such as "PT30M" or whole seconds such as 1800',
        );
      } else {
        expirationSeconds = seconds;
      }
    }
    errors.throwIfAny();

    const settings = await merchantsRepo.listGateways(db, merchantId);
    const byCode = new Map(settings.map((s) => [s.pg_code, s]));
    const unknown = input.pg_codes.filter((c) => !byCode.has(c));
    if (unknown.length > 0) {
      const known = settings.map((s) => s.pg_code).join(", ") || "none yet";
      throw new AppError(
        "unknown_pg_code",
        `Unknown pg_code ${unknown.join(", ")}. Your gateway codes: ${known}.`,
        {
          errors: { pg_codes: unknown.map((c) => `"${c}" is not one of your gateway codes`) },
        },
      );
    }
    const chosen = input.pg_codes.map((c) => byCode.get(c)!);
    const unsupported = chosen.filter((s) => !s.currencies.includes(input.currency_code));
    if (unsupported.length > 0) {
      throw new AppError(
        "currency_not_supported",
        `${unsupported.map((s) => s.pg_code).join(", ")} do${unsupported.length === 1 ? "es" : ""} not take ${input.currency_code}. Use a currency the gateway supports (${unsupported[0]!.currencies.join(", ")}) or another pg_code.`,
        {
          errors: { currency_code: [`is not supported by ${unsupported.map((s) => s.pg_code).join(", ")}`] },
        },
      );
    }
    for (const setting of chosen) {
      const problem = amountProblemFor(setting.kind, amountMinor, input.currency_code);
      if (problem)
        throw new AppError("validation_failed", `${setting.pg_code} cannot take this amount: ${problem}.`, {
          errors: { amount: [problem] },
        });
    }
    const operations = new Set(chosen.map((s) => s.operation));
    if (operations.size > 1) {
      throw new AppError(
        "validation_failed",
        "All pg_codes of one transaction must share one operation (purchase or authorize). Create one transaction per operation.",
        {
          errors: { pg_codes: ["mix purchase and authorize gateway settings"] },
        },
      );
    }

    const created = now();
    const row = await checkoutRepo.insertTransaction(db, {
      session_id: newId("sess"),
      merchant_id: merchantId,
      order_no: input.order_no ?? null,
      type: input.type,
      created_via: createdVia,
      state: "created",
      amount_minor: amountMinor,
      currency_code: input.currency_code,
      operation: chosen[0]!.operation,
      pg_codes: input.pg_codes,
      language: input.language ?? "en",
      customer_id: input.customer_id ?? null,
      customer_email: input.customer_email ?? null,
      customer_phone: input.customer_phone ?? null,
      customer_first_name: input.customer_first_name ?? null,
      customer_last_name: input.customer_last_name ?? null,
      redirect_url: input.redirect_url ?? null,
      webhook_url: input.webhook_url ?? null,
      metadata,
      expires_at: new Date(created.getTime() + expirationSeconds * 1000),
    });
    if (!row) {
      throw new AppError(
        "duplicate_order_no",
        `order_no "${input.order_no}" is already used by another transaction of yours. Send a new order_no, or look the existing one up with GET /v1/payments?order_no=.`,
        {
          errors: { order_no: ["is already used"] },
        },
      );
    }
    const preload = await details(db, row);
    return {
      session_id: row.session_id,
      order_no: row.order_no,
      type: row.type,
      amount: preload.amount,
      currency_code: row.currency_code,
      state: row.state,
      operation: row.operation,
      language: row.language,
      pg_codes: row.pg_codes,
      checkout_url: `${config.publicUrl}/pay/${row.session_id}`,
      payment_methods: preload.payment_methods,
      expires_at: row.expires_at.toISOString(),
      created_via: row.created_via,
      ...(input.include_sdk_setup_preload ? { sdk_setup_preload_payload: preload } : {}),
    };
  }

  /** The SDK's details call: the preload shape. Opening the checkout moves `created` to `pending`. */
  async function sdkDetails(merchantId: string, sessionId: string) {
    const tx = await load(merchantId, sessionId);
    return details(db, tx.state === "created" ? ((await checkoutRepo.markPending(db, sessionId)) ?? tx) : tx);
  }

  const flow = createPaymentFlow(db, { config, gateways, now, load, payments: deps.payments });

  /** The expiry sweep the server runs periodically (reads also expire lazily, so this is for listings). */
  const expireDueSessions = () => deps.payments.expireDue();

  /** The hosted card page's merchant name and cancel action. */
  const hostedPage = createHostedPageService(db, { now, payments: deps.payments });

  return { create, sdkDetails, load, expireDueSessions, ...flow, ...hostedPage };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
