/**
 * KNET's payment initialisation and response as plain `name=value&…` strings (K-064 v1.4,
 * 3.5.4–3.5.5 and the raw PHP kit), the limits KNET puts on their fields, and its hosts.
 * Encryption is trandata.ts's; the server API's XML is xml.ts's.
 */

/** KNET's production host (the manual and both sample kits agree). */
export const KNET_PRODUCTION_HOST = "https://www.kpay.com.kw";
/**
 * KNET's test host. The raw sample kits (PHP, JSP) send the browser to `kpaytest.com.kw`, the
 * manual's refund and portal sections write `www.kpaytest.com.kw`; integrations in use call both
 * names for both endpoints. svc follows the kits, the code KNET ships for the raw integration;
 * a gateway setting can name either.
 */
export const KNET_TEST_HOST = "https://kpaytest.com.kw";
/** The payment initialisation, opened by the customer's browser. */
export const KNET_PAYMENT_INIT_PATH = "/kpg/PaymentHTTP.htm?param=paymentInit";
/** The server API (inquiry, refund), called server to server with an XML body. */
export const KNET_TRAN_PIPE_PATH = "/kpg/tranPipe.htm?param=tranInit";

/** KNET's page language by svc's language. The manual also writes `EN`; the kits send `USA`. */
export const KNET_LANG = { en: "USA", ar: "AR" } as const;
/** ISO 4217 numeric code of the Kuwaiti dinar, KNET's only currency. */
export const KNET_CURRENCY_KWD = "414";

/** Fils in a dinar: KWD has three decimals. */
const FILS_PER_DINAR = 1000;
/** KNET's `amt` field, in characters (decimal point included). */
const AMOUNT_MAX_CHARS = 10;
/** KNET's track id, in characters. */
const TRACK_ID_MAX_CHARS = 40;
/** KNET's udf fields, in characters. */
const UDF_MAX_CHARS = 255;

/** The payment initialisation's fields (udf1–5 default to empty, as the kit sends them). */
export interface KnetPaymentInit {
  id: string;
  password: string;
  action: string;
  langid: string;
  currencycode: string;
  amt: string;
  responseURL: string;
  errorURL: string;
  trackid: string;
  udf1?: string;
  udf2?: string;
  udf3?: string;
  udf4?: string;
  udf5?: string;
}

/** The sample kit's order, which the vectors were computed with. */
export const PAYMENT_INIT_ORDER = [
  "id",
  "password",
  "action",
  "langid",
  "currencycode",
  "amt",
  "responseURL",
  "errorURL",
  "trackid",
  "udf1",
  "udf2",
  "udf3",
  "udf4",
  "udf5",
] as const satisfies ReadonlyArray<keyof KnetPaymentInit>;

/**
 * What a value in KNET's plain payment-initialisation string cannot hold, or undefined: the
 * string is `name=value&…` with values not URL-encoded (KNET reads them as they are), so an `&`
 * would start another field and a control character would not be text. Every other printable
 * character is carried as it is. The one rule for the string (paymentInitPlain) and for the
 * credentials that go into it (credentials.ts: tranportal id and password, refused at save).
 *
 * @example
 * plainValueProblem("123401pg"); // undefined
 * plainValueProblem("pw&x"); // "cannot hold '&' …"
 */
export function plainValueProblem(value: string): string | undefined {
  const found = /[&\p{Cc}]/u.exec(value);
  if (!found) return undefined;
  const what =
    found[0] === "&"
      ? "'&'"
      : `control characters (found U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})`;
  return `cannot hold ${what}: KNET's payment request is a plain name=value&… string that KNET would misread; any other printable character is fine`;
}

/**
 * The plain payment-initialisation string, to encrypt with `encryptTrandata`. A value
 * `plainValueProblem` refuses would change the fields KNET sees: that throws, naming the field
 * but never its value.
 *
 * @example
 * paymentInitPlain({ id: "123401", password: "123401pg", action: "1", langid: KNET_LANG.en,
 *   currencycode: KNET_CURRENCY_KWD, amt: knetAmount(20_550), responseURL, errorURL, trackid: "att01" });
 * // "id=123401&password=123401pg&action=1&langid=USA&currencycode=414&amt=20.550&…&udf5="
 */
export function paymentInitPlain(fields: KnetPaymentInit): string {
  return PAYMENT_INIT_ORDER.map((name) => {
    const value = fields[name] ?? "";
    const problem = plainValueProblem(value);
    if (problem) throw new Error(`KNET's ${name} ${problem}.`);
    return `${name}=${value}`;
  }).join("&");
}

/**
 * Reads KNET's `name=value&…` (a decrypted response, or its plain error post): split on `&`,
 * then on the first `=`. `+` reads as a space (the manual's samples write `NOT+CAPTURED`) and
 * `%XX` is decoded; both are safe because nothing KNET returns holds a literal `+` or `%`
 * (udf fields refuse both, the rest are letters and digits). A malformed escape stays as it is.
 * A repeated name keeps its last value, as the kit's result.php (array_merge) does.
 *
 * @example
 * parseKnetPairs("paymentid=896…&result=NOT+CAPTURED&amt=5.000");
 * // { paymentid: "896…", result: "NOT CAPTURED", amt: "5.000" }
 */
export function parseKnetPairs(plain: string): Record<string, string> {
  const pairs = new Map<string, string>();
  for (const segment of plain.split("&")) {
    if (segment === "") continue;
    const at = segment.indexOf("=");
    const name = decodeLeniently(at < 0 ? segment : segment.slice(0, at));
    pairs.set(name, at < 0 ? "" : decodeLeniently(segment.slice(at + 1)));
  }
  // fromEntries defines own properties: a pair named __proto__ cannot reach the prototype.
  return Object.fromEntries(pairs);
}

function decodeLeniently(text: string): string {
  const spaced = text.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * What is wrong with a track id for KNET, or undefined: 1–40 ASCII letters and digits (the
 * manual: "only alpha-numeric"; its troubleshooting names `-` among the refused characters).
 *
 * @example
 * trackIdProblem("att01"); // undefined
 * trackIdProblem("att_01"); // "KNET's track id is 1–40 letters and digits; this one has '_'."
 */
export function trackIdProblem(trackId: string): string | undefined {
  if (trackId.length === 0) return "KNET's track id cannot be empty.";
  if (trackId.length > TRACK_ID_MAX_CHARS)
    return `KNET's track id is at most ${TRACK_ID_MAX_CHARS} characters; this one has ${trackId.length}.`;
  const bad = /[^A-Za-z0-9]/.exec(trackId);
  return bad ? `KNET's track id is 1–40 letters and digits; this one has '${bad[0]}'.` : undefined;
}

/** The characters KNET refuses in udf fields (the raw kit's list). */
export const UDF_FORBIDDEN_CHARACTERS = "!#$%^&*()+[]\\';,{}|\":<>?~`";

/**
 * What is wrong with a udf value for KNET, or undefined: at most 255 characters, none of
 * `UDF_FORBIDDEN_CHARACTERS`, no CR/LF nor any other control character (the kit's "junk
 * values", and a trandata holding one would not be text). `@` and `/`, which the manual lists
 * for the library integration only, are allowed.
 *
 * @example
 * udfProblem("sess_01"); // undefined
 * udfProblem("a;b"); // "KNET refuses ';' in udf fields."
 */
export function udfProblem(value: string): string | undefined {
  if (value.length > UDF_MAX_CHARS)
    return `KNET's udf fields are at most ${UDF_MAX_CHARS} characters; this one has ${value.length}.`;
  if (/[\r\n]/.test(value)) return "KNET refuses line breaks (CR/LF) in udf fields.";
  if (/\p{Cc}/u.test(value)) return "KNET refuses control characters in udf fields.";
  for (const char of value)
    if (UDF_FORBIDDEN_CHARACTERS.includes(char)) return `KNET refuses '${char}' in udf fields.`;
  return undefined;
}

/** The largest amount KNET's `amt` carries, in fils: all its characters but the point, nines (999999.999 KWD). */
export const KNET_MAX_FILS = Number("9".repeat(AMOUNT_MAX_CHARS - 1));

/** A KNET amount as KNET writes it back (`1.000`, `12.5`, `3`) in fils; NaN when it is not one. */
export function filsOf(amount: string): number {
  const match = /^(\d{1,7})(?:\.(\d{1,3}))?$/.exec(amount.trim());
  return match ? Number(match[1]) * FILS_PER_DINAR + Number((match[2] ?? "").padEnd(3, "0")) : Number.NaN;
}

/**
 * An amount in fils as KNET's `amt`: dinars with exactly three decimals, at most 10 characters
 * (so 999999.999 KWD at most). Zero, negative and fractional fils are refused: no KNET
 * transaction is of nothing, and fils are KWD's smallest unit.
 *
 * @example
 * knetAmount(15_750); // "15.750"
 * knetAmount(1); // "0.001"
 */
export function knetAmount(minorUnits: number): string {
  if (!Number.isSafeInteger(minorUnits) || minorUnits <= 0)
    throw new RangeError(`A KNET amount is a positive whole number of fils, not ${minorUnits}.`);
  const dinars = Math.floor(minorUnits / FILS_PER_DINAR);
  const fils = String(minorUnits % FILS_PER_DINAR).padStart(3, "0");
  const amount = `${dinars}.${fils}`;
  if (amount.length > AMOUNT_MAX_CHARS)
    throw new RangeError(
      `KNET's amt is at most ${AMOUNT_MAX_CHARS} characters (999999.999 KWD); ${amount} KWD does not fit.`,
    );
  return amount;
}

/** The parts of the payment-initialisation URL besides the path. */
export interface KnetPaymentPageParams {
  trandata: string;
  tranportalId: string;
  responseURL: string;
  errorURL: string;
}

/**
 * The URL of KNET's payment initialisation, where the customer's browser goes. The query values
 * are percent-encoded (KNET's servlet decodes them); `base` may end with `/`.
 *
 * @example
 * paymentPageUrl(KNET_TEST_HOST, { trandata, tranportalId: "123401", responseURL, errorURL });
 * // "https://kpaytest.com.kw/kpg/PaymentHTTP.htm?param=paymentInit&trandata=…&tranportalId=123401&responseURL=https%3A%2F%2F…"
 */
export function paymentPageUrl(base: string, params: KnetPaymentPageParams): string {
  const query = (["trandata", "tranportalId", "responseURL", "errorURL"] as const)
    .map((name) => `&${name}=${encodeURIComponent(params[name])}`)
    .join("");
  return `${base.replace(/\/+$/, "")}${KNET_PAYMENT_INIT_PATH}${query}`;
}
