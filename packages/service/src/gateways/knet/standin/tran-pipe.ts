/**
 * KNET's server API (`POST /kpg/tranPipe.htm?param=tranInit`, application/xml): the inquiry
 * (action 8, manual 3.5.3) and the refund (action 2, 3.7), authenticated by the terminal's id and
 * password in the body. Errors are answered as FSS iPay does, in XML with HTTP 200.
 */
import { apiAmountFils, formatFils } from "./amount.js";
import { fail, KnetStandInError } from "./knet-errors.js";
import { postDate } from "./ids.js";
import { ID_DIGITS, identifierKind, isPaid, type Ledger, type Payment } from "./ledger.js";
import { REDACTED } from "./init.js";
import type { KnetRequestRecord, KnetStandInTerminal } from "./types.js";
import { errorXml, readXmlFields, writeXml } from "./xml-io.js";

/** The stand-in's own: a refund whose fils part is 013 (1.013, 20.013) is declined by the issuer. */
const DECLINED_REFUND_FILS = 13;

export interface TranPipeOutcome {
  xml: string;
  /** Whether this call was a refund that reached the ledger (for faults.loseRefundAnswers). */
  refund: boolean;
}

type Fields = Record<string, string>;

/** Handles one call; `record` gets the elements (password redacted) and the action. */
export function tranPipe(
  ledger: Ledger,
  contentType: string,
  body: string,
  record: KnetRequestRecord,
): TranPipeOutcome {
  const fields = readXmlFields(body);
  record.fields = { ...fields, ...(fields.password === undefined ? {} : { password: REDACTED }) };
  if (fields.action !== undefined) record.action = fields.action;
  let refund = false;
  try {
    if (contentType.split(";")[0]!.trim().toLowerCase() !== "application/xml") fail("IPAY0100177");
    if (!fields.id) fail("IPAY0100005");
    const terminal = ledger.terminal(fields.id) ?? fail("IPAY0100006");
    if (fields.password !== terminal.password) fail("IPAY0100015");
    if (!fields.action) fail("IPAY0100143");
    if (fields.action === "8") return { xml: inquiry(ledger, terminal, fields), refund };
    if (fields.action !== "2") fail("IPAY0100020");
    refund = true;
    return { xml: refundOf(ledger, terminal, fields), refund };
  } catch (error) {
    if (error instanceof KnetStandInError) return { xml: errorXml(error.code), refund };
    throw error;
  }
}

/** The manual's field table (3.5.4): Trans ID, STRING 19, whichever identifier `udf5` names. */
const TRANSID_MAX = 19;

/** The original transaction the call names (manual 3.5.3's table), checked against its track id. */
function original(ledger: Ledger, terminal: KnetStandInTerminal, fields: Fields): Payment {
  const kind = identifierKind(fields.udf5);
  if (!fields.transid) fail("IPAY0100232");
  if (fields.transid.length > TRANSID_MAX) fail("IPAY0100177");
  const payment = ledger.find(terminal.tranportalId, kind, fields.transid) ?? fail("IPAY0100263");
  // A page still open has no transaction yet: KNET knows of no result to tell.
  if (payment.result === "PENDING") fail("IPAY0100263");
  if (fields.trackid !== payment.trackId) fail("IPAY0100063");
  return payment;
}

/** Inquiry: SUCCESS when paid, FAILURE otherwise, with the original's fields. */
function inquiry(ledger: Ledger, terminal: KnetStandInTerminal, fields: Fields): string {
  const payment = original(ledger, terminal, fields);
  if (apiAmountFils(fields.amt) !== payment.amountFils) fail("IPAY0100062");
  return writeXml([
    ["result", isPaid(payment) ? "SUCCESS" : "FAILURE"],
    ["auth", payment.auth],
    ["ref", payment.ref],
    ["avr", "N"],
    ["postdate", payment.postdate],
    ["tranid", payment.tranId],
    ["payid", payment.paymentId],
    ["trackid", payment.trackId],
    ["udf1", payment.udf1],
    ["udf2", payment.udf2],
    ["udf3", payment.udf3],
    ["udf4", payment.udf4],
    // KNET echoes the inquiry's own udf5 (the identifier's name), as answers recorded in use show.
    ["udf5", fields.udf5 ?? ""],
    ["amt", payment.amount],
    ["authRespCode", payment.authRespCode],
  ]);
}

/** Refund of `amt`: CAPTURED with a new transaction, or NOT CAPTURED for the 13-fils convention. */
function refundOf(ledger: Ledger, terminal: KnetStandInTerminal, fields: Fields): string {
  const payment = original(ledger, terminal, fields);
  const fils = apiAmountFils(fields.amt);
  const answer = (result: string, ref: string, auth: string, postdate: string, tranid: string) =>
    writeXml([
      ["result", result],
      ["payid", payment.paymentId],
      ["trackid", payment.trackId],
      ["udf1", ""],
      ["udf5", ""],
      ["ref", ref],
      ["auth", auth],
      ["postdate", postdate],
      ["tranid", tranid],
      ["amt", formatFils(fils)],
    ]);
  if (!isPaid(payment)) fail("IPAY0100134");
  if (fils % 1000 === DECLINED_REFUND_FILS) return answer("NOT CAPTURED", "", "", "", "");
  const done = ledger.refund(payment, fils, "api");
  return answer("CAPTURED", done.ref, ledger.ids.next(ID_DIGITS.auth), postDate(done.at), done.tranId);
}
