/**
 * The KNET errors the stand-in gives, with the words of the manual's error table (K-064 v1.4,
 * section 10). Which check gives which code is the stand-in's reading of the table; see index.ts.
 */
export const KNET_ERRORS = {
  IPAY0100001: "Missing error URL",
  IPAY0100002: "Invalid error URL",
  IPAY0100003: "Missing response URL",
  IPAY0100004: "Invalid response URL",
  IPAY0100005: "Missing tranportal ID",
  IPAY0100006: "Invalid tranportal ID",
  IPAY0100007: "Missing transaction data",
  IPAY0100013: "Invalid transaction data",
  IPAY0100014: "Terminal Authentication requested with invalid tranportal data",
  IPAY0100015: "Invalid tranportal password",
  IPAY0100020: "Invalid action type",
  IPAY0100021: "Missing currency",
  IPAY0100022: "Invalid currency",
  IPAY0100023: "Missing amount",
  IPAY0100024: "Invalid amount",
  IPAY0100025: "Invalid amount or currency",
  IPAY0100026: "Invalid language ID",
  IPAY0100027: "Invalid track id",
  IPAY0100028: "Invalid user defined field1",
  IPAY0100029: "Invalid user defined field2",
  IPAY0100030: "Invalid user defined field3",
  IPAY0100031: "Invalid user defined field4",
  IPAY0100032: "Invalid user defined field5",
  IPAY0100033: "Terminal action not enabled",
  IPAY0100037: "Payment id missing",
  IPAY0100039: "Invalid payment id",
  IPAY0100042: "Transaction time limit exceeds",
  IPAY0100055: "Invalid Payment Status",
  IPAY0100060: "Transaction denied due to missing amount",
  IPAY0100061: "Transaction denied due to invalid amount",
  IPAY0100062: "Transaction denied due to invalid Amount/Currency",
  IPAY0100063: "Transaction denied due to invalid track ID",
  IPAY0100068: "Transaction denied due to invalid UDF5",
  IPAY0100075: "Transaction denied due to invalid expiry year",
  IPAY0100077: "Transaction denied due to invalid expiry month",
  IPAY0100087: "Card pin number is not present",
  IPAY0100106: "Invalid payment instrument",
  IPAY0100114: "Duplicate Record",
  IPAY0100119: "Transaction denied due to invalid card number",
  IPAY0100134: "Transaction denied due to invalid Result Code",
  IPAY0100137:
    "Transaction denied due to credit amount greater than auth amount check failure (Validate Original Transaction )",
  IPAY0100143: "Transaction action is null",
  IPAY0100177: "Invalid input data received",
  IPAY0100232: "Missing original transaction id",
  IPAY0100249: "Merchant response URL is down",
  IPAY0100263: "Transaction details not available",
} as const;

export type KnetErrorCode = keyof typeof KNET_ERRORS;

/** A KNET error as the stand-in's handlers raise it. */
export class KnetStandInError extends Error {
  constructor(readonly code: KnetErrorCode) {
    super(`${code} ${KNET_ERRORS[code]}`);
    this.name = "KnetStandInError";
  }

  get text(): string {
    return KNET_ERRORS[this.code];
  }
}

/** Throws KNET's error `code` (an expression, so checks read as one line each). */
export function fail(code: KnetErrorCode): never {
  throw new KnetStandInError(code);
}
