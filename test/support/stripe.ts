/**
 * What a customer's browser does on the Stripe stand-in's 3-D Secure page, in plain HTTP: load
 * the page at `next_action.redirect_to_url.url`, find the form whose button says "Complete
 * authentication" (or "Fail authentication"), submit it, and report where the page redirects.
 */

export interface ThreeDSecureResult {
  /** The `return_url` with `payment_intent`, `payment_intent_client_secret` and `redirect_status`. */
  location: string;
}

interface ParsedForm {
  method: string;
  action: string;
  fields: Record<string, string>;
  buttons: string[];
}

const decodeEntities = (text: string) =>
  text.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, "&");

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}="([^"]*)"`, "i").exec(tag);
  return match?.[1] === undefined ? undefined : decodeEntities(match[1]);
}

function parseForms(html: string): ParsedForm[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((m) => {
    const [, attrs = "", inner = ""] = m;
    const fields: Record<string, string> = {};
    for (const input of inner.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input[0], "name");
      if (name) fields[name] = attribute(input[0], "value") ?? "";
    }
    const buttons = [...inner.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/gi)].map((b) =>
      decodeEntities((b[1] ?? "").replace(/<[^>]+>/g, "")).trim(),
    );
    return {
      method: (attribute(`<form${attrs}>`, "method") ?? "get").toLowerCase(),
      action: attribute(`<form${attrs}>`, "action") ?? "",
      fields,
      buttons,
    };
  });
}

/**
 * Loads the 3DS page and presses one of its buttons.
 *
 * @example
 * const { location } = await completeThreeDSecure(pi.next_action!.redirect_to_url!.url!, "complete");
 * new URL(location).searchParams.get("redirect_status"); // "succeeded"
 */
export async function completeThreeDSecure(
  redirectUrl: string,
  outcome: "complete" | "fail",
): Promise<ThreeDSecureResult> {
  const page = await fetch(redirectUrl);
  if (page.status !== 200) throw new Error(`the 3DS page answered ${page.status}`);
  const label = outcome === "complete" ? "Complete authentication" : "Fail authentication";
  const form = parseForms(await page.text()).find((f) => f.buttons.includes(label));
  if (!form) throw new Error(`no form with a "${label}" button on the 3DS page`);
  const answer = await fetch(new URL(form.action, redirectUrl), {
    method: form.method.toUpperCase(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields).toString(),
    redirect: "manual",
  });
  const location = answer.headers.get("location");
  if (answer.status !== 303 || !location)
    throw new Error(`the 3DS form answered ${answer.status}, not a redirect`);
  return { location };
}
