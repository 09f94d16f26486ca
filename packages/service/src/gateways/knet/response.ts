/**
 * KNET's response (its manual, section 5): after the customer acts on KNET's page, KNET posts
 * `trandata=<encrypted response>` as a form to svc's notification endpoint and waits for one line,
 * `REDIRECT=<receipt URL>`, where it then sends the customer's browser (without it, KNET reverses
 * the payment). Anyone can post to that URL, and AES-CBC without a MAC does not prove who wrote
 * the trandata, so the response is a claim: svc believes what KNET's inquiry confirms, checks the
 * amount and track id against its own attempt, and keeps the encrypted and the plain response.
 * A response that does not decrypt changes nothing (401); one the inquiry does not confirm
 * changes nothing either, and the customer's result page asks KNET again. So does one whose
 * inquiry fails, answers something that is not KNET's, or has not answered within the budget
 * the adapter gives it (KNET reverses the payment when `REDIRECT=` comes late): svc still answers
 * `REDIRECT=` in time, and the payment is confirmed by a later inquiry (the poll, the sweep).
 */
import { clipText } from "../../db/json.js";
import { AppError } from "../../http/problem.js";
import {
  type GatewayPaymentRef,
  type GatewayPaymentResult,
  type InboundNotification,
  type NotificationContext,
  type NotificationRead,
  NotificationRejected,
} from "../adapter.js";
import { GatewayError } from "../gateway-error.js";
import { filsOf, parseKnetPairs } from "./fields.js";
import { decryptTrandata, KnetTrandataError } from "./trandata.js";

/** KNET's fields a payment's pg_response carries (the national-debit popup shows them). */
const RESULT_FIELDS = [
  "result",
  "auth",
  "ref",
  "paymentid",
  "tranid",
  "postdate",
  "trackid",
  "amt",
  "authRespCode",
];

/** KNET's answer as a pg_response: the result fields it gave, plus its error when it refused. */
export function knetResponse(fields: Record<string, string>, error?: { code: string; text: string }) {
  const response: Record<string, string> = {};
  for (const key of RESULT_FIELDS) if (fields[key] !== undefined) response[key] = fields[key];
  // The server API names the payment id `payid`.
  if (fields.payid && !response.paymentid) response.paymentid = fields.payid;
  // The manual's samples spell the reason code `authResponseCode`, its field table `authRespCode`:
  // either is kept, under the table's name.
  if (fields.authResponseCode && !response.authRespCode) response.authRespCode = fields.authResponseCode;
  if (error) Object.assign(response, { error_code: error.code, error_text: error.text });
  return response;
}

/** The fields of KNET's plain error post: all svc keeps of one, read (the manual's, and udf1–udf5 echoed). */
const ERROR_POST_FIELDS = [
  "Error",
  "ErrorText",
  "paymentid",
  "trackid",
  "amt",
  "result",
  "udf1",
  "udf2",
  "udf3",
  "udf4",
  "udf5",
];
/**
 * How much of a plain error post svc keeps. Anyone can post one naming a known track id, and
 * KNET's is a few hundred bytes: a post of a megabyte is not kept whole (twice) for every try.
 */
const ERROR_POST_KEPT = { raw: 4096, field: 255 };

/** What svc keeps of a plain error post: KNET's fields, clipped, and the post as received up to a bound. */
function errorPostRecord(raw: string, form: URLSearchParams) {
  const decoded: Record<string, string> = {};
  for (const name of ERROR_POST_FIELDS) {
    const value = form.get(name);
    if (value !== null) decoded[name] = clipText(value, ERROR_POST_KEPT.field);
  }
  if (raw.length <= ERROR_POST_KEPT.raw) return { raw, decoded };
  const kept = clipText(raw, ERROR_POST_KEPT.raw);
  return { raw: `${kept}… (${raw.length - kept.length} more characters not kept)`, decoded };
}

interface KnetResponseDeps {
  resourceKey: string;
  /**
   * KNET's inquiry of the payment (undefined: KNET has no transaction for it), within what is
   * left of KNET's wait; a GatewayError when it cannot tell in that time.
   */
  confirm(ref: GatewayPaymentRef): Promise<GatewayPaymentResult | undefined>;
}

const redirectTo = (url: string) => ({ contentType: "text/plain; charset=utf-8", body: `REDIRECT=${url}` });

/** Reads, verifies and confirms one KNET response post. */
export async function readKnetResponse(
  input: InboundNotification,
  context: NotificationContext,
  knet: KnetResponseDeps,
): Promise<NotificationRead> {
  if (input.contentType !== "application/x-www-form-urlencoded")
    throw new AppError(
      "unsupported_media_type",
      "KNET posts its response as a form (application/x-www-form-urlencoded) with the field trandata.",
    );
  const raw = input.rawBody.toString("utf8");
  const form = new URLSearchParams(raw);
  const trandata = form.get("trandata");
  if (!trandata) {
    // KNET itself failed (plain ErrorText/Error): nothing in it is authenticated, so nothing is
    // applied; the customer's result page asks KNET how the payment ended.
    const trackId = form.get("trackid") ?? "";
    const ref = trackId ? await context.paymentByReference(trackId) : undefined;
    if (!ref) throw new AppError("not_found", "This KNET post names no payment of this gateway setting.");
    return {
      notifications: [],
      record: { pgReference: trackId, ...errorPostRecord(raw, form), outcome: "knet_error" },
      reply: redirectTo(ref.returnUrl),
    };
  }
  let fields: Record<string, string>;
  try {
    fields = parseKnetPairs(decryptTrandata(trandata, knet.resourceKey));
  } catch (error) {
    if (!(error instanceof KnetTrandataError)) throw error;
    throw new NotificationRejected(
      "The KNET response does not decrypt with this gateway setting's resource key: it was not sent by KNET for this terminal, or was changed on the way. Nothing was changed.",
    );
  }
  const trackId = fields.trackid ?? "";
  const ref = await context.paymentByReference(trackId);
  if (!ref)
    throw new AppError("not_found", `No payment of this gateway setting has the track id ${trackId}.`);
  const record = (outcome: string) => ({ pgReference: trackId, raw, decoded: fields, outcome });
  const unchanged = (outcome: string): NotificationRead => ({
    notifications: [],
    record: record(outcome),
    reply: redirectTo(ref.returnUrl),
  });
  // Cross-checked with svc's own record of the attempt (the manual asks it): amount, then KNET's inquiry.
  // Compared as amounts: "10.000" and "10.0" are the same 10 KWD (as a refund's answer is read).
  if (filsOf(fields.amt ?? "") !== filsOf(ref.amount)) return unchanged("amount_mismatch");
  let confirmed: GatewayPaymentResult | undefined;
  try {
    confirmed = await knet.confirm(ref);
  } catch (error) {
    if (error instanceof GatewayError) return unchanged("inquiry_failed");
    throw error;
  }
  if (!confirmed) return unchanged("not_confirmed");
  const claimed = (fields.result ?? "").toUpperCase();
  let result: GatewayPaymentResult;
  if (confirmed.status === "approved")
    result = { ...confirmed, pgResponse: { ...knetResponse(fields), ...confirmed.pgResponse } };
  else if (claimed === "CAPTURED") return unchanged("not_confirmed");
  else
    result = {
      status: claimed === "CANCELED" ? "canceled" : "declined",
      pgReference: trackId,
      pgResponse: knetResponse(fields),
    };
  return {
    notifications: [
      {
        type: "payment_result",
        pgReference: trackId,
        result,
        notificationId: `knet:${fields.paymentid || trackId}`,
      },
    ],
    record: record(result.status),
    reply: redirectTo(ref.returnUrl),
  };
}
