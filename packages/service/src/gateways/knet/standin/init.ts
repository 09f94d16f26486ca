/**
 * KNET's payment initialisation (`GET /kpg/PaymentHTTP.htm?param=paymentInit&trandata=…`),
 * checked as the manual lists it (3.5.4 and the error table of section 10). The trandata's
 * fields are read here, with the stand-in's own code: split on `&`, then on the first `=`, the
 * values taken as written (KNET's request is not URL-encoded).
 */
import { knetDecrypt } from "./aes.js";
import { initAmountFils } from "./amount.js";
import { fail, type KnetErrorCode } from "./knet-errors.js";
import { ID_DIGITS, type Ledger, type Payment } from "./ledger.js";
import type { KnetRequestRecord } from "./types.js";

/** KNET's URL fields, in characters. */
const URL_MAX_CHARS = 255;
/** KNET's udf fields, in characters. */
const UDF_MAX_CHARS = 255;
/** The characters the raw kit tells merchants KNET refuses in udf fields. */
const UDF_REFUSED = "!#$%^&*()+[]\\';,{}|\":<>?~`";
const UDF_ERRORS: KnetErrorCode[] = [
  "IPAY0100028",
  "IPAY0100029",
  "IPAY0100030",
  "IPAY0100031",
  "IPAY0100032",
];
/** The page languages: the kits send USA, the manual's table says EN. */
const LANGUAGES = new Set(["USA", "EN", "AR"]);
export const REDACTED = "***";

/** The trandata's pairs; the first of a repeated name counts. */
function readPairs(plain: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const part of plain.split("&")) {
    const eq = part.indexOf("=");
    const name = eq < 0 ? part : part.slice(0, eq);
    if (name && !pairs.has(name)) pairs.set(name, eq < 0 ? "" : part.slice(eq + 1));
  }
  return pairs;
}

function checkUrl(url: string | undefined, missing: KnetErrorCode, invalid: KnetErrorCode): string {
  if (!url) fail(missing);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail(invalid);
  }
  // Production KNET posts to https only (manual 2.3); the stand-in takes http for loopback tests.
  if ((parsed.protocol !== "https:" && parsed.protocol !== "http:") || url.length > URL_MAX_CHARS)
    fail(invalid);
  return url;
}

function udfIsValid(value: string): boolean {
  if (value.length > UDF_MAX_CHARS || /[\u0000-\u001f\u007f]/.test(value)) return false;
  return ![...value].some((char) => UDF_REFUSED.includes(char));
}

/**
 * Checks one initialisation and opens its payment (result PENDING). Throws KnetStandInError
 * with KNET's code otherwise. `record` gets the decrypted fields, password redacted.
 */
export function paymentInit(
  ledger: Ledger,
  query: URLSearchParams,
  record: KnetRequestRecord,
  pageLifetimeMs: number,
): Payment {
  const tranportalId = query.get("tranportalId");
  if (!tranportalId) fail("IPAY0100005");
  const terminal = ledger.terminal(tranportalId) ?? fail("IPAY0100006");
  const trandata = query.get("trandata");
  if (!trandata) fail("IPAY0100007");
  const plain = knetDecrypt(trandata, terminal.resourceKey) ?? fail("IPAY0100013");
  const fields = readPairs(plain);
  record.trandata = Object.fromEntries(fields);
  if (fields.has("password")) record.trandata.password = REDACTED;
  const field = (name: string) => fields.get(name);

  if (field("id") !== terminal.tranportalId) fail("IPAY0100014");
  if (field("password") !== terminal.password) fail("IPAY0100015");
  // The trandata's URLs are the encrypted ones; the query's (the kit sends both) stand in when absent.
  const errorURL = checkUrl(field("errorURL") ?? query.get("errorURL") ?? "", "IPAY0100001", "IPAY0100002");
  const responseURL = checkUrl(
    field("responseURL") ?? query.get("responseURL") ?? "",
    "IPAY0100003",
    "IPAY0100004",
  );
  // Authorisation (4) is a KNET action, but no stand-in terminal has it enabled.
  if (field("action") === "4") fail("IPAY0100033");
  if (field("action") !== "1") fail("IPAY0100020");
  const currency = field("currencycode");
  if (!currency) fail("IPAY0100021");
  if (currency !== "414") fail("IPAY0100022");
  const amountFils = initAmountFils(field("amt"));
  const langid = field("langid") ?? "";
  if (!LANGUAGES.has(langid)) fail("IPAY0100026");
  const trackId = field("trackid") ?? "";
  if (!/^[A-Za-z0-9]{1,40}$/.test(trackId)) fail("IPAY0100027");
  const udfs = [1, 2, 3, 4, 5].map((n) => field(`udf${n}`) ?? "");
  for (const [i, value] of udfs.entries()) if (!udfIsValid(value)) fail(UDF_ERRORS[i]!);
  if (ledger.trackIdUsed(terminal.tranportalId, trackId)) fail("IPAY0100114");

  const [udf1, udf2, udf3, udf4, udf5] = udfs as [string, string, string, string, string];
  return ledger.add({
    paymentId: ledger.ids.next(ID_DIGITS.paymentId),
    trackId,
    tranportalId: terminal.tranportalId,
    amount: field("amt")!,
    amountFils,
    result: "PENDING",
    langid,
    udf1,
    udf2,
    udf3,
    udf4,
    udf5,
    responseURL,
    errorURL,
    tranId: "",
    ref: "",
    auth: "",
    postdate: "",
    authRespCode: "",
    refunds: [],
    refunded: "0.000",
    refundedFils: 0,
    voided: false,
    notification: "none",
    createdAt: new Date(),
    expiresAt: Date.now() + pageLifetimeMs,
    submitted: false,
  });
}
