/**
 * The XML of KNET's server API (`tranPipe.htm`, K-064 v1.4 3.5.3 and 3.7.2): requests are sibling
 * elements with no root, and answers are read tolerantly: KNET's FSS iPay software answers
 * sibling elements too, but its errors, spacing and wrappers vary, and a proxy in front of it
 * may answer HTML. Reading never throws; what cannot be read is left out.
 */

/** An XML element name as KNET uses them (`udf5`, `authRespCode`, `error_code_tag`). */
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Escapes text for an XML element's content. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/**
 * The body of a server-API call: `<name>value</name>` per field, in the given order, values
 * escaped. An invalid element name is svc's bug: it throws.
 *
 * @example
 * tranPipeBody([["id", "123401"], ["password", "pw"], ["action", "8"], ["udf5", "TrackID"]]);
 * // "<id>123401</id><password>pw</password><action>8</action><udf5>TrackID</udf5>"
 */
export function tranPipeBody(fields: ReadonlyArray<readonly [string, string]>): string {
  return fields
    .map(([name, value]) => {
      if (!ELEMENT_NAME.test(name)) throw new Error(`'${name}' is not an XML element name KNET reads.`);
      return `<${name}>${escapeXml(value)}</${name}>`;
    })
    .join("");
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (entity, body: string) => {
    if (body[0] !== "#") return NAMED_ENTITIES[body] ?? entity;
    const code = body[1] === "x" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    // Not a character (0, a surrogate, beyond Unicode): left as written.
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : entity;
  });
}

/** One token: CDATA, a comment, a declaration or processing instruction, a tag, or text. */
const TOKEN =
  /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<[?!][^>]*>|<(\/?)([A-Za-z_][\w.:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|([^<]+)|</g;

interface Open {
  name: string;
  text: string;
  hasChild: boolean;
}

/**
 * The text of every leaf element (one without child elements), by name: the fields of KNET's
 * answer whether or not a root wraps them. Values are trimmed (KNET's are never meant to start
 * or end with spaces) and entity-decoded; an empty or self-closing element reads as "". When a
 * name repeats, the first one counts. Garbage gives what could be read, or {}.
 *
 * @example
 * parseTranPipe("<result>CAPTURED</result><payid>100201719515482162</payid><udf1></udf1>");
 * // { result: "CAPTURED", payid: "100201719515482162", udf1: "" }
 */
export function parseTranPipe(xml: string): Record<string, string> {
  const found = new Map<string, string>();
  const keep = (name: string, value: string) => {
    if (!found.has(name)) found.set(name, value);
  };
  const open: Open[] = [];
  try {
    for (const match of String(xml).matchAll(TOKEN)) {
      const [, cdata, slash, name, attributes, text] = match;
      const top = open.at(-1);
      if (cdata !== undefined) {
        if (top) top.text += cdata;
      } else if (text !== undefined) {
        if (top) top.text += decodeEntities(text);
      } else if (name === undefined) {
        continue; // a comment, a declaration, or a lone '<'
      } else if (slash) {
        const at = open.map((o) => o.name).lastIndexOf(name);
        if (at < 0) continue; // a close tag with no open one: ignored
        const closed = open[at]!;
        open.length = at; // unclosed elements inside it are dropped
        if (!closed.hasChild) keep(closed.name, closed.text.trim());
      } else {
        if (top) top.hasChild = true;
        if (attributes?.trimEnd().endsWith("/")) keep(name, "");
        else open.push({ name, text: "", hasChild: false });
      }
    }
  } catch {
    // Unreachable with string input; the promise is "never throws", whatever a caller passes.
  }
  return Object.fromEntries(found);
}

/** KNET's error, when an answer is one. */
export interface KnetError {
  /** KNET's code, e.g. `IPAY0100263`; `UNKNOWN` when KNET said `!ERROR!` without one. */
  code: string;
  /** KNET's words, e.g. `Transaction details not available`. */
  text: string;
}

/** `!ERROR!-IPAY0100263-Transaction details not available`, KNET's error in `result`. */
const ERROR_RESULT = /^!ERROR!\s*-?\s*([A-Z]+[0-9]+)?\s*-?\s*([\s\S]*)$/;
/** A field's value, or undefined when it is empty or FSS iPay's string "null" (what it writes in a tag it has nothing for). */
export const present = (value: string | undefined) =>
  value !== undefined && value.trim() !== "" && value.trim().toLowerCase() !== "null"
    ? value.trim()
    : undefined;

/**
 * KNET's error in an answer, or undefined when the answer is not one. Recognised: FSS iPay's
 * `error_code_tag` (with `error_text` or `error_service_tag`), a `result` of the form
 * `!ERROR!-<code>-<text>`, and the `Error`/`ErrorText` pair of KNET's plain error post.
 *
 * @example
 * knetErrorOf(parseTranPipe("<error_code_tag>IPAY0100263</error_code_tag><result>!ERROR!-IPAY0100263-Transaction details not available</result>"));
 * // { code: "IPAY0100263", text: "Transaction details not available" }
 */
export function knetErrorOf(record: Record<string, string>): KnetError | undefined {
  const fromResult = ERROR_RESULT.exec(record.result?.trim() ?? "");
  const code = present(record.error_code_tag) ?? fromResult?.[1] ?? present(record.Error);
  const text =
    present(fromResult?.[2]) ??
    present(record.error_text) ??
    present(record.ErrorText) ??
    present(record.error_service_tag);
  if (code === undefined && !fromResult && text === undefined) return undefined;
  return { code: code ?? "UNKNOWN", text: text ?? "" };
}

/**
 * Whether a server-API answer is KNET's own, in the form its inquiry and refund answer (the
 * manual's 3.5.5 and 3.7.3, FSS iPay's errors): a `result` (CAPTURED, SUCCESS, FAILURE,
 * `!ERROR!-…`), or an `error_code_tag` holding KNET's code. Anything else that parses as
 * elements (an HTML page's `title`, `h1`, `p`; a foreign XML) is not: svc cannot tell what it
 * says, so it must not be taken as a decline.
 *
 * @example
 * isKnetAnswer(parseTranPipe("<result>FAILURE</result><trackid>t1</trackid>")); // true
 * isKnetAnswer(parseTranPipe("<error_code_tag>IPAY0100263</error_code_tag>")); // true
 * isKnetAnswer(parseTranPipe("<html><title>Maintenance</title><p>Back soon</p></html>")); // false
 */
export function isKnetAnswer(record: Record<string, string>): boolean {
  return present(record.result) !== undefined || present(record.error_code_tag) !== undefined;
}
