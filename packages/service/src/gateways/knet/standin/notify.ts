/**
 * KNET's response notification (manual section 5 and 9.2): a form POST, server to server, to the
 * merchant's responseURL, whose answer must be one line `REDIRECT=<receipt URL>`. Anything else
 * (another status, a redirect, HTML, no answer in time, no connection) is a failed handshake,
 * after which KNET reverses the payment and sends the customer to the errorURL.
 */

/** How much of the merchant's answer is read: one line is expected. */
const ANSWER_MAX_BYTES = 64 * 1024;

export type MerchantAnswer = { redirect: string } | { problem: string };

/** The receipt URL in the merchant's answer, or why there is none. */
export function readMerchantAnswer(status: number, body: string): MerchantAnswer {
  if (status < 200 || status > 299) return { problem: `the merchant answered HTTP ${status}` };
  // A BOM or spaces around the line are forgiven; HTML or a second "line" before it is not.
  const line = (body.replace(/^\uFEFF/, "").split(/\r?\n/)[0] ?? "").trim();
  if (!line.startsWith("REDIRECT=")) return { problem: "the merchant's answer is not REDIRECT=<url>" };
  const url = line.slice("REDIRECT=".length).trim();
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "https:" || parsed.protocol === "http:") return { redirect: url };
  } catch {
    // fall through
  }
  return { problem: "the merchant's REDIRECT= holds no absolute http(s) URL" };
}

async function readLimited(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= ANSWER_MAX_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Posts `form` (already x-www-form-urlencoded) to `url` and reads the answer. Never throws: a
 * failure is a `problem`. `stop` aborts it when the stand-in closes.
 */
export async function notifyMerchant(
  url: string,
  form: string,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<MerchantAnswer> {
  // A timer of its own, not AbortSignal.timeout(): inside AbortSignal.any() Node can collect a
  // timeout signal before it fires (nodejs/node#57736), and the wait then lasts as long as the
  // merchant takes. Seen once in CI: a merchant answering after 3 s was waited for.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")),
    timeoutMs,
  );
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      redirect: "manual",
      signal: AbortSignal.any([deadline.signal, stop]),
    });
    return readMerchantAnswer(response.status, await readLimited(response));
  } catch (error) {
    const name = (error as Error).name;
    if (name === "TimeoutError") return { problem: `the merchant did not answer within ${timeoutMs} ms` };
    return { problem: `the merchant could not be reached (${(error as Error).message})` };
  } finally {
    clearTimeout(timer);
  }
}
