/**
 * KNET's server API (`/kpg/tranPipe.htm?param=tranInit`, sibling XML elements, application/xml):
 * the inquiry (action 8) that confirms a payment, and the refund (action 2). KNET authenticates
 * these calls by the tranportal id and password in the body; they never travel through a browser.
 */
import type { Pool } from "undici";
import { GatewayError, neverSent } from "../gateway-error.js";
import { KNET_TRAN_PIPE_PATH } from "./fields.js";
import { isKnetAnswer, knetErrorOf, parseTranPipe, tranPipeBody } from "./xml.js";

/** KNET's error for a track id it has no transaction for (yet: the customer may still be paying). */
export const KNET_NOT_FOUND = "IPAY0100263";

export interface KnetTerminal {
  tranportalId: string;
  password: string;
  resourceKey: string;
}

/** KNET's answer: its fields, and its error when it refused. */
export interface TranPipeAnswer {
  fields: Record<string, string>;
  error: { code: string; text: string } | undefined;
}

/**
 * One call to KNET's server API, answered within `timeoutMs` in all (connect, headers and body).
 * A transport failure, a non-2xx answer or a 2xx answer that is not KNET's (see `isKnetAnswer`:
 * an HTML page from a proxy, an empty or foreign body) is a GatewayError: `outcomeUnknown`
 * unless no connection was made (the request never left). Only KNET's own answer is read.
 */
export async function tranPipe(
  pool: Pool,
  basePath: string,
  timeoutMs: number,
  fields: ReadonlyArray<readonly [string, string]>,
): Promise<TranPipeAnswer> {
  let statusCode: number;
  let text: string;
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    const response = await pool.request({
      method: "POST",
      path: basePath + KNET_TRAN_PIPE_PATH,
      headers: { "content-type": "application/xml" },
      body: tranPipeBody(fields),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: deadline,
    });
    statusCode = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    const reason = deadline.aborted
      ? `KNET did not answer within ${timeoutMs} ms`
      : `KNET could not be reached: ${(error as Error).message}`;
    throw new GatewayError("gateway_unavailable", reason, {
      cause: error,
      outcomeUnknown: !neverSent(error),
    });
  }
  if (statusCode < 200 || statusCode >= 300)
    throw new GatewayError("gateway_unavailable", `KNET answered HTTP ${statusCode}`, {
      statusCode,
      pgResponse: { raw: text.slice(0, 500) },
    });
  const fields_ = parseTranPipe(text);
  if (!isKnetAnswer(fields_))
    throw new GatewayError(
      "gateway_unavailable",
      "KNET's server API answered something that is not KNET's answer (no result and no KNET error code: a proxy's or maintenance page, or an empty body); what became of the request is unknown",
      { statusCode, pgResponse: { raw: text.slice(0, 500) } },
    );
  return { fields: fields_, error: knetErrorOf(fields_) };
}

/** The inquiry (action 8) of the payment with track id `trackId` and its original amount. */
export function inquiryFields(terminal: KnetTerminal, trackId: string, amount: string) {
  return [
    ["id", terminal.tranportalId],
    ["password", terminal.password],
    ["action", "8"],
    ["amt", amount],
    ["transid", trackId],
    ["trackid", trackId],
    ["udf5", "TrackID"],
  ] as const;
}

/** A refund (action 2) of `amount` on the payment with track id `trackId`. */
export function refundFields(terminal: KnetTerminal, trackId: string, amount: string) {
  return [
    ["id", terminal.tranportalId],
    ["password", terminal.password],
    ["action", "2"],
    ["amt", amount],
    ["transid", trackId],
    ["trackid", trackId],
    ["udf5", "TrackID"],
  ] as const;
}

/** The inquiry's verdict: SUCCESS or CAPTURED = paid (KNET's manual, 3.5.5). */
export function inquiryPaid(answer: TranPipeAnswer): boolean {
  const result = (answer.fields.result ?? "").toUpperCase();
  return !answer.error && (result === "SUCCESS" || result === "CAPTURED");
}
