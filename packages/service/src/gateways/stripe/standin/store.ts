/**
 * Each account's objects. Every object belongs to the account whose key made it; lookups go
 * through the account, so another account's id is `resource_missing` as on Stripe. Objects are
 * kept as the package's types and copied out, so a caller never holds the stand-in's own.
 */
import type Stripe from "stripe";
import type { TestCard } from "./cards.js";
import { IdempotencyStore } from "./idempotency.js";
import type { PaymentMethodRecord } from "./payment-method.js";

export interface PaymentIntentRecord {
  paymentIntent: Stripe.PaymentIntent;
  /** Creation order, to sort objects created within the same second. */
  seq: number;
  /** The card that decides outcomes (set on confirm). */
  card?: TestCard;
  /** The PaymentMethod set on it and not yet charged (`requires_confirmation`, `requires_action`). */
  pendingPaymentMethod?: PaymentMethodRecord;
  /** 3-D Secure was completed for the pending PaymentMethod (manual confirmation confirms again). */
  authenticated?: boolean;
  returnUrl?: string;
}

export interface ChargeRecord {
  charge: Stripe.Charge;
  seq: number;
  card: TestCard;
}

export interface RefundRecord {
  refund: Stripe.Refund;
  seq: number;
}

export interface AccountConfig {
  secretKey: string;
  webhookSecret: string;
  webhookUrl?: string;
  rawCardData?: boolean;
}

export class AccountState {
  readonly paymentIntents = new Map<string, PaymentIntentRecord>();
  readonly charges = new Map<string, ChargeRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly events: Stripe.Event[] = [];
  readonly idempotency = new IdempotencyStore();
  webhookUrl: string | undefined;
  private seq = 0;

  constructor(readonly config: AccountConfig) {
    this.webhookUrl = config.webhookUrl;
  }

  get rawCardData(): boolean {
    return this.config.rawCardData ?? true;
  }

  /** How the account is named in logs: the key's prefix and last four characters, never the key. */
  get keyId(): string {
    return keyIdOf(this.config.secretKey);
  }

  nextSeq(): number {
    return ++this.seq;
  }
}

/**
 * The part of a secret key that may be logged, as Stripe's dashboard shows keys.
 *
 * @example
 * keyIdOf("sk_test_abcdefgh1234"); // "sk_test_…1234"
 */
export function keyIdOf(secretKey: string): string {
  const prefix = /^(sk|rk)_(test|live)_/.exec(secretKey)?.[0] ?? "";
  return `${prefix}…${secretKey.slice(-4)}`;
}

/** A deep copy, so answers and events are snapshots rather than the stand-in's live objects. */
export function snapshot<T>(value: T): T {
  return structuredClone(value);
}
