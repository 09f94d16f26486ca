/**
 * KNET's books in the stand-in: terminals, payments and their refunds. A payment is paid when
 * its result is CAPTURED and the auto-void did not reverse it; what can be refunded is what was
 * paid less what was refunded, through the API or the merchant portal alike.
 */
import { formatFils } from "./amount.js";
import { IdSource, postDate } from "./ids.js";
import { fail } from "./knet-errors.js";
import type { KnetLedgerEntry, KnetLedgerRefund, KnetStandInTerminal } from "./types.js";

/** Lengths of KNET's ids, in digits, as its samples show them. */
export const ID_DIGITS = { paymentId: 16, tranId: 16, ref: 12, auth: 6 } as const;

/** A payment as the stand-in keeps it: the ledger entry, plus what only the stand-in needs. */
export interface Payment extends KnetLedgerEntry {
  amountFils: number;
  refundedFils: number;
  /** When the page stops being usable (ms since the epoch). */
  expiresAt: number;
  /** The customer submitted and KNET is talking to the merchant: a second submit is refused. */
  submitted: boolean;
}

/** How the server API names the original transaction (`udf5`, manual 3.5.3 and 3.6.1). */
export type IdentifierKind = "trackId" | "paymentId" | "tranId" | "ref";

/** KNET's udf5 words, lower-cased; empty means the transaction id. */
const IDENTIFIERS: Record<string, IdentifierKind> = {
  trackid: "trackId",
  paymentid: "paymentId",
  transid: "tranId",
  transactionid: "tranId",
  "": "tranId",
  seqnum: "ref",
  refid: "ref",
};

/** The identifier `udf5` names, or IPAY0100068 when KNET knows no such word. */
export function identifierKind(udf5: string | undefined): IdentifierKind {
  return IDENTIFIERS[(udf5 ?? "").trim().toLowerCase()] ?? fail("IPAY0100068");
}

export const isPaid = (payment: Payment) => payment.result === "CAPTURED" && !payment.voided;

export class Ledger {
  readonly ids = new IdSource();
  private readonly all: Payment[] = [];
  private readonly terminalsById: Map<string, KnetStandInTerminal>;

  constructor(terminals: KnetStandInTerminal[]) {
    this.terminalsById = new Map(terminals.map((t) => [t.tranportalId, t]));
    if (this.terminalsById.size !== terminals.length)
      throw new Error("KNET stand-in: two terminals share a tranportal id");
  }

  terminal(tranportalId: string): KnetStandInTerminal | undefined {
    return this.terminalsById.get(tranportalId);
  }

  add(payment: Payment): Payment {
    this.all.push(payment);
    return payment;
  }

  byPaymentId(paymentId: string): Payment | undefined {
    return this.all.find((p) => p.paymentId === paymentId);
  }

  trackIdUsed(tranportalId: string, trackId: string): boolean {
    return this.all.some((p) => p.tranportalId === tranportalId && p.trackId === trackId);
  }

  /** The terminal's payment whose `kind` is `value` (empty ids never match). */
  find(tranportalId: string, kind: IdentifierKind, value: string): Payment | undefined {
    if (value === "") return undefined;
    return this.all.find((p) => p.tranportalId === tranportalId && p[kind] === value);
  }

  /** Any terminal's payment with this track id (the portal shows them all). */
  byTrackId(trackId: string): Payment | undefined {
    return this.all.find((p) => p.trackId === trackId);
  }

  /**
   * Refunds `fils` of a paid payment: IPAY0100134 when it is not paid, IPAY0100137 when more than
   * what remains. KNET has no idempotency: every call is a new refund.
   */
  refund(payment: Payment, fils: number, via: KnetLedgerRefund["via"]): KnetLedgerRefund {
    if (!isPaid(payment)) fail("IPAY0100134");
    if (fils > payment.amountFils - payment.refundedFils) fail("IPAY0100137");
    const refund: KnetLedgerRefund = {
      tranId: this.ids.next(ID_DIGITS.tranId),
      ref: this.ids.next(ID_DIGITS.ref),
      amount: formatFils(fils),
      via,
      at: new Date(),
    };
    payment.refunds.push(refund);
    payment.refundedFils += fils;
    payment.refunded = formatFils(payment.refundedFils);
    return refund;
  }

  /** The public ledger: copies, without the stand-in's own fields. */
  snapshot(): KnetLedgerEntry[] {
    return this.all.map((payment) => {
      const { amountFils: _a, refundedFils: _r, expiresAt: _e, submitted: _s, ...entry } = payment;
      return structuredClone(entry);
    });
  }
}

/** Gives a payment KNET's numbers for its result (manual section 5's samples, the vectors). */
export function settle(
  ledger: Ledger,
  payment: Payment,
  result: Payment["result"],
  authRespCode: string,
): void {
  payment.result = result;
  payment.authRespCode = authRespCode;
  // A canceled payment never reached the issuer: no transaction, reference or post date.
  if (result === "CANCELED" || result === "EXPIRED") return;
  payment.tranId = ledger.ids.next(ID_DIGITS.tranId);
  payment.postdate = postDate();
  if (result !== "CAPTURED") return;
  payment.ref = ledger.ids.next(ID_DIGITS.ref);
  payment.auth = ledger.ids.next(ID_DIGITS.auth);
}
