import type { Queryable } from "../db/client.js";
import { type TransactionRow, transactionsRepo } from "../payments/transactions.repo.js";
import { jsonParam } from "../db/json.js";

export type { TransactionRow };

export interface AttemptRow {
  id: string;
  session_id: string;
  pg_code: string;
  form_of_payment: string;
  status: string;
  pg_reference: string | null;
  pg_response: Record<string, unknown> | null;
  otp_failures: number;
  save_card: boolean;
  /** The gateway page or challenge an `action_required` attempt waits on. */
  redirect_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export type NewTransaction = Omit<
  TransactionRow,
  | "pg_code"
  | "form_of_payment"
  | "pg_reference"
  | "pg_response"
  | "challenge_occurred"
  | "captures_once"
  | "completed_at"
  | "ops_version"
  | "created_at"
  | "updated_at"
>;

const COLUMNS: (keyof NewTransaction)[] = [
  "session_id",
  "merchant_id",
  "order_no",
  "type",
  "created_via",
  "state",
  "amount_minor",
  "currency_code",
  "operation",
  "pg_codes",
  "language",
  "customer_id",
  "customer_email",
  "customer_phone",
  "customer_first_name",
  "customer_last_name",
  "redirect_url",
  "webhook_url",
  "expires_at",
  "metadata",
];

export const checkoutRepo = {
  ...transactionsRepo,
  /** Inserts the parent; returns undefined when the order_no is taken (the unique index decides, not a prior read). */
  async insertTransaction(q: Queryable, t: NewTransaction): Promise<TransactionRow | undefined> {
    const rows = await q.query<TransactionRow>(
      `insert into transactions (${COLUMNS.join(", ")}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
       on conflict (merchant_id, order_no) where order_no is not null do nothing returning *`,
      COLUMNS.map((c) => (c === "metadata" ? JSON.stringify(t.metadata) : t[c])),
    );
    return rows[0];
  },

  async setState(
    q: Queryable,
    sessionId: string,
    state: string,
    extra: Partial<TransactionRow> = {},
  ): Promise<TransactionRow> {
    const keys = Object.keys(extra) as (keyof TransactionRow)[];
    const sets = keys.map((k, i) => `${k} = $${i + 3}`);
    const rows = await q.query<TransactionRow>(
      `update transactions set state = $2, updated_at = now()${sets.length ? `, ${sets.join(", ")}` : ""} where session_id = $1 returning *`,
      [sessionId, state, ...keys.map((k) => (k === "pg_response" ? jsonParam(extra[k]) : extra[k]))],
    );
    return rows[0]!;
  },
  /** created → pending when the customer opens the checkout; any other state is left alone. */
  async markPending(q: Queryable, sessionId: string): Promise<TransactionRow | undefined> {
    await q.query(
      "update transactions set state = 'pending', updated_at = now() where session_id = $1 and state = 'created'",
      [sessionId],
    );
    return (
      await q.query<TransactionRow>("select * from transactions where session_id = $1", [sessionId])
    )[0];
  },

  async insertAttempt(
    q: Queryable,
    a: { id: string; sessionId: string; pgCode: string; formOfPayment: string; saveCard: boolean },
  ): Promise<boolean> {
    const rows = await q.query(
      `insert into payment_attempts (id, session_id, pg_code, form_of_payment, status, save_card)
       values ($1, $2, $3, $4, 'started', $5) on conflict (session_id) do nothing returning id`,
      [a.id, a.sessionId, a.pgCode, a.formOfPayment, a.saveCard],
    );
    return rows.length > 0;
  },
  async findAttempt(q: Queryable, sessionId: string, lock = false): Promise<AttemptRow | undefined> {
    return (
      await q.query<AttemptRow>(
        `select * from payment_attempts where session_id = $1${lock ? " for update" : ""}`,
        [sessionId],
      )
    )[0];
  },
  async attemptById(q: Queryable, id: string): Promise<AttemptRow | undefined> {
    return (await q.query<AttemptRow>("select * from payment_attempts where id = $1", [id]))[0];
  },
  /**
   * Attempts sent to the gateway whose answer was never recorded (their request died), older
   * than `olderThanSeconds`, claimed for the sweep: the claim moves `updated_at` on, so no other
   * sweep takes them before the same time has passed again.
   */
  async claimStaleAttempts(q: Queryable, olderThanSeconds: number, limit: number): Promise<AttemptRow[]> {
    return q.query<AttemptRow>(
      `update payment_attempts set updated_at = now()
        where id in (
          select a.id from payment_attempts a join transactions t on t.session_id = a.session_id
           where a.status = 'started' and t.state = 'attempted'
             and a.updated_at < now() - make_interval(secs => $1)
           order by a.updated_at limit $2 for update of a skip locked)
        returning *`,
      [olderThanSeconds, limit],
    );
  },
  /**
   * Claims attempts waiting on a gateway page (action_required) with no news for longer than
   * `olderThanSeconds`, bumping them so each is asked again at most once per that interval.
   */
  async claimStaleWaitingAttempts(
    q: Queryable,
    olderThanSeconds: number,
    limit: number,
  ): Promise<AttemptRow[]> {
    return q.query<AttemptRow>(
      `update payment_attempts set updated_at = now()
        where id in (
          select a.id from payment_attempts a join transactions t on t.session_id = a.session_id
           where a.status = 'action_required' and t.state = 'attempted' and a.pg_reference is not null
             and a.updated_at < now() - make_interval(secs => $1)
           order by a.updated_at limit $2 for update of a skip locked)
        returning *`,
      [olderThanSeconds, limit],
    );
  },
  /** The attempt a gateway knows as `pgReference` on the setting `pgCode`. */
  async attemptByReference(
    q: Queryable,
    pgCode: string,
    pgReference: string,
  ): Promise<AttemptRow | undefined> {
    return (
      await q.query<AttemptRow>("select * from payment_attempts where pg_code = $1 and pg_reference = $2", [
        pgCode,
        pgReference,
      ])
    )[0];
  },
  async updateAttempt(
    q: Queryable,
    id: string,
    patch: {
      status: string;
      pg_reference?: string | null;
      pg_response?: unknown;
      otp_failures?: number;
      redirect_url?: string;
    },
  ): Promise<void> {
    await q.query(
      `update payment_attempts set status = $2, pg_reference = coalesce($3, pg_reference),
              pg_response = coalesce($4, pg_response), otp_failures = coalesce($5, otp_failures),
              redirect_url = coalesce($6, redirect_url), updated_at = now()
        where id = $1`,
      [
        id,
        patch.status,
        patch.pg_reference ?? null,
        patch.pg_response === undefined ? null : jsonParam(patch.pg_response),
        patch.otp_failures ?? null,
        patch.redirect_url ?? null,
      ],
    );
  },
  /**
   * The customer's saved cards, one per card: the newest row per gateway fingerprint (or, for
   * cards saved before fingerprints, per brand, last digits and expiry), oldest first.
   */
  async savedCards(q: Queryable, merchantId: string, customerId: string, pgCodes: string[]) {
    return q.query<{
      token: string;
      brand: string;
      last4: string;
      expiry: string;
      pg_code: string;
      gateway_token: string;
    }>(
      `select token, brand, last4, expiry, pg_code, gateway_token from (
         select distinct on (pg_code, coalesce(fingerprint, brand || '|' || last4 || '|' || expiry))
                token, brand, last4, expiry, pg_code, gateway_token, created_at
           from saved_cards
          where merchant_id = $1 and customer_id = $2 and pg_code = any($3)
          order by pg_code, coalesce(fingerprint, brand || '|' || last4 || '|' || expiry), updated_at desc, created_at desc
       ) one_per_card order by created_at, token`,
      [merchantId, customerId, pgCodes],
    );
  },
  async insertSavedCard(
    q: Queryable,
    c: {
      token: string;
      merchantId: string;
      customerId: string;
      pgCode: string;
      gatewayToken: string;
      brand: string;
      last4: string;
      expiry: string;
      fingerprint?: string;
    },
  ) {
    // Saving a card the customer already saved (same fingerprint) refreshes that card: its svc
    // token stays, the gateway's token and the expiry are the new ones.
    await q.query(
      `insert into saved_cards (token, merchant_id, customer_id, pg_code, gateway_token, brand, last4, expiry, fingerprint)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (merchant_id, customer_id, pg_code, fingerprint) where fingerprint is not null
       do update set gateway_token = excluded.gateway_token, brand = excluded.brand, last4 = excluded.last4,
                     expiry = excluded.expiry, updated_at = now()`,
      [
        c.token,
        c.merchantId,
        c.customerId,
        c.pgCode,
        c.gatewayToken,
        c.brand,
        c.last4,
        c.expiry,
        c.fingerprint ?? null,
      ],
    );
  },
};
