/**
 * # KNET stand-in
 *
 * An HTTP server of ours that speaks KNET's raw-integration wire format (Merchant Integration
 * Manual K-064 v1.4 and KNET's PHP sample kit), so svc's KNET connector can be tested with
 * nothing mocked: svc's setting points its base URL here, a test's "browser" (test/support/knet.ts)
 * pays on the page, and the stand-in posts KNET's encrypted response to svc.
 *
 * ```ts
 * const knet = await startKnetStandIn({ terminals: [{ tranportalId: "123401", password: "pw", resourceKey: "1234567890123456" }] });
 * const { location } = await payOnKnet(redirectUrlFromSvc, { expiry: "09/2021" });
 * knet.payments()[0]?.result; // "CAPTURED"
 * await knet.close();
 * ```
 *
 * ## KNET's published behaviour (the manual, the kit)
 * - `GET /kpg/PaymentHTTP.htm?param=paymentInit&trandata=…&tranportalId=…&responseURL=…&errorURL=…`:
 *   trandata is AES-128-CBC with key = IV = the terminal's resource key, hex; its fields are
 *   checked as 3.5.4 lists them, with the error codes and words of section 10 (IPAY0100001–07,
 *   13–15, 20–32, 114 Duplicate Record for a track id used before on the terminal).
 * - The payment page: bank list with "KNET Test Card [KNET1]"; expiry 09/2021 → CAPTURED, any
 *   other → NOT CAPTURED; any 4-digit PIN; Cancel → CANCELED (section 4).
 * - The response: a form POST `trandata=<encrypted>` to responseURL, in the field order of
 *   section 5's samples; CANCELED has no auth, ref, tranid or postdate, and CANCELED and HOST
 *   TIMEOUT carry no authRespCode, as those samples show. The merchant must answer 2xx with
 *   the one line `REDIRECT=<url>` (a redirect or HTML is wrong, 9.2.1); the browser goes there.
 *   Otherwise the auto-void (9.2.1): the payment is reversed, the browser goes to errorURL.
 * - When the page's time runs out, IPAY0100042 is posted plainly (`Error`, `ErrorText`,
 *   `paymentid`, `trackid`, `amt`, `udf1…5`: the fields the manual's handler reads), no trandata.
 * - `POST /kpg/tranPipe.htm?param=tranInit`, application/xml, sibling elements: inquiry
 *   (action 8) by TrackID, PaymentID, TransID/TransactionID (or empty udf5) and SeqNum/RefID,
 *   `amt` and `trackid` the original's; SUCCESS when paid, FAILURE otherwise. Refund (action 2),
 *   full or partial, CAPTURED on success, with the manual's answer fields; no idempotency.
 * - Refunds on the merchant portal are told to nobody (`portalRefund`).
 *
 * ## The stand-in's own conventions (KNET publishes nothing for them)
 * - Expiry 12/2021 with KNET1 → HOST TIMEOUT; the "Stand-in Other Bank [TEST2]" → NOT CAPTURED
 *   (reason 05); KNET1 with another expiry → reason 51 (as the spec's vector 3); CAPTURED → 00.
 * - A refund whose fils part is 013 (1.013, 20.013) → NOT CAPTURED, nothing refunded.
 * - Ids: payment id and tranid 16 random digits, ref 12, auth 6; post date = today in Kuwait.
 * - Which code for which check where the table offers several: id in trandata ≠ tranportalId →
 *   IPAY0100014; action 4 → IPAY0100033; a numeric amount without 3 decimals → IPAY0100025,
 *   anything else wrong with it → IPAY0100024; refund of an unpaid payment → IPAY0100134, beyond
 *   what remains → IPAY0100137; wrong content type, or a `transid` over the field table's 19
 *   characters → IPAY0100177; unknown udf5 → IPAY0100068;
 *   server-API amounts: missing IPAY0100060, malformed IPAY0100061, not the original's IPAY0100062;
 *   not found or not finished (page still open) → IPAY0100263.
 * - Server-API errors are XML with HTTP 200 (`error_code_tag`, `error_service_tag` "null",
 *   `result` `!ERROR!-code-words`), as FSS iPay's answers recorded in use look.
 * - An inquiry's udf5 echoes the inquiry's own udf5, as answers recorded in use show.
 * - http responseURL/errorURL are accepted (real KNET wants https); the trandata's URLs win
 *   over the query's. The auto-void sends the browser to errorURL as given, adding nothing.
 * - Pages: a payment's page expires after `pageLifetimeMs`; a second submit → IPAY0100055.
 * - Faults: `dropResponseNotification`, `loseRefundAnswers` (the refund is performed, then the
 *   connection is reset), `tranPipeDelayMs` (performed, answered late), `tranPipeStatus` (not
 *   performed; that status with an HTML body, like a proxy failing).
 */
export { startKnetStandIn, MERCHANT_TIMEOUT_MS, PAGE_LIFETIME_MS } from "./server.js";
export { KNET_ERRORS, type KnetErrorCode } from "./knet-errors.js";
export { BANKS } from "./page-text.js";
export type {
  KnetLedgerEntry,
  KnetLedgerRefund,
  KnetLedgerResult,
  KnetNotificationOutcome,
  KnetPageResult,
  KnetRequestRecord,
  KnetStandIn,
  KnetStandInFaults,
  KnetStandInOptions,
  KnetStandInTerminal,
} from "./types.js";
