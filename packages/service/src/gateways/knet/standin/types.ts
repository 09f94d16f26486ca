/** The KNET stand-in's public shapes: its options, its handle, its ledger and its faults. */

/** A KNET terminal the stand-in knows (KNET's raw-integration credentials). */
export interface KnetStandInTerminal {
  tranportalId: string;
  password: string;
  /** 16 bytes, the AES key (and IV) of this terminal's trandata. */
  resourceKey: string;
}

export interface KnetStandInOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  terminals: KnetStandInTerminal[];
  /** The stand-in's URL as browsers reach it (its redirects use it); default its own `url`. */
  publicUrl?: string;
  /** How long the merchant's responseURL has to answer `REDIRECT=…` before the auto-void; default 10 s. */
  merchantTimeoutMs?: number;
  /** How long a payment page stays usable after the initialisation; default 15 min. */
  pageLifetimeMs?: number;
}

/** How the customer's action on the payment page ended (KNET's `result`). */
export type KnetPageResult = "CAPTURED" | "NOT CAPTURED" | "CANCELED" | "HOST TIMEOUT";
/** A payment's state: a page result, or the stand-in's PENDING (page open) / EXPIRED (lifetime over). */
export type KnetLedgerResult = KnetPageResult | "PENDING" | "EXPIRED";

/** What became of KNET's response notification to the merchant's responseURL. */
export type KnetNotificationOutcome =
  | "none" // not sent yet (the page is open)
  | "redirected" // the merchant answered REDIRECT=…; the browser went there
  | "failed" // the merchant did not (or could not be reached): auto-void, the browser went to errorURL
  | "dropped"; // faults.dropResponseNotification: never sent

export interface KnetLedgerRefund {
  /** KNET's transaction id of the refund (new per refund). */
  tranId: string;
  ref: string;
  /** KWD, three decimals. */
  amount: string;
  /** `api`: the server API (action 2); `portal`: KNET's merchant portal (nobody is told). */
  via: "api" | "portal";
  at: Date;
}

/** One payment as KNET's books hold it. */
export interface KnetLedgerEntry {
  paymentId: string;
  trackId: string;
  tranportalId: string;
  /** KWD, three decimals, as initialised. */
  amount: string;
  result: KnetLedgerResult;
  langid: string;
  udf1: string;
  udf2: string;
  udf3: string;
  udf4: string;
  udf5: string;
  responseURL: string;
  errorURL: string;
  /** KNET's transaction id, reference, authorisation code and post date (MMDD); "" when none. */
  tranId: string;
  ref: string;
  auth: string;
  postdate: string;
  authRespCode: string;
  refunds: KnetLedgerRefund[];
  /** Sum of `refunds`, KWD with three decimals. */
  refunded: string;
  /** Reversed by the auto-void (manual 9.2): a CAPTURED payment that is not paid after all. */
  voided: boolean;
  notification: KnetNotificationOutcome;
  createdAt: Date;
}

/** One request the stand-in received. Passwords, trandata, card numbers and PINs are redacted. */
export interface KnetRequestRecord {
  at: Date;
  method: string;
  /** The path without the query, e.g. `/kpg/tranPipe.htm`. */
  path: string;
  /** The server API's `<action>` (8 inquiry, 2 refund), when there was one. */
  action?: string;
  /** The query (initialisation), the form (payment page) or the XML elements (server API). */
  fields: Record<string, string>;
  /** The initialisation's decrypted trandata, password redacted, when it decrypted. */
  trandata?: Record<string, string>;
}

/** Faults a test switches on by assigning to `standIn.faults`. */
export interface KnetStandInFaults {
  /**
   * The customer closed the browser before KNET's response (or KNET's POST was lost): the
   * payment is done, no POST goes to responseURL, the browser gets a plain page.
   */
  dropResponseNotification: boolean;
  /** The next N refunds (action 2) are performed and recorded, then the socket is destroyed unanswered. */
  loseRefundAnswers: number;
  /** Every server-API call is performed, then answered this much later (ms). */
  tranPipeDelayMs: number;
  /** Every server-API call is answered with this HTTP status and an HTML body, and not performed. */
  tranPipeStatus?: number;
}

export interface KnetStandIn {
  /** e.g. `http://127.0.0.1:41234`: the base URL for svc's KNET setting. */
  url: string;
  port: number;
  close(): Promise<void>;
  /** A copy of the ledger, oldest payment first. */
  payments(): KnetLedgerEntry[];
  requests: KnetRequestRecord[];
  faults: KnetStandInFaults;
  /** A refund done on KNET's merchant portal: only the ledger shows it. Throws when KNET would refuse it. */
  portalRefund(trackId: string, amount: string): KnetLedgerRefund;
}
