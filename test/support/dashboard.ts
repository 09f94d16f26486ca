/**
 * A minimal browser stand-in for dashboard HTTP tests: keeps the cookies, reads the CSRF field
 * of the last page, and posts urlencoded forms with the Origin a browser would send.
 */
import type { TestMerchant } from "./merchant.js";
import type { Stack } from "./stack.js";

export interface PageResponse {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf = "";

  constructor(readonly stack: Stack) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private async finish(response: Response): Promise<PageResponse> {
    this.remember(response);
    const text = await response.text();
    const csrf = /name="_csrf" value="([^"]*)"/.exec(text)?.[1];
    if (csrf) this.csrf = csrf;
    return {
      status: response.status,
      location: response.headers.get("location"),
      headers: response.headers,
      text,
    };
  }

  async get(path: string): Promise<PageResponse> {
    const response = await fetch(`${this.stack.url}${path}`, {
      headers: { cookie: this.cookieHeader() },
      redirect: "manual",
    });
    return this.finish(response);
  }

  /** Posts a form; `_csrf` is the last page's token unless given (null leaves it out). */
  async post(
    path: string,
    fields: Record<string, string | string[]> = {},
    options: { csrf?: string | null; origin?: string | null } = {},
  ): Promise<PageResponse> {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.set("_csrf", csrf);
    for (const [k, v] of Object.entries(fields))
      for (const value of Array.isArray(v) ? v : [v]) body.append(k, value);
    const origin = options.origin === undefined ? this.stack.url : options.origin;
    const response = await fetch(`${this.stack.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: this.cookieHeader(),
        ...(origin !== null ? { origin } : {}),
      },
      body: body.toString(),
      redirect: "manual",
    });
    return this.finish(response);
  }

  async signIn(username: string, password: string): Promise<PageResponse> {
    await this.get("/dashboard/sign-in");
    return this.post("/dashboard/sign-in", { username, password });
  }
}

/** Signs in and fails loudly if it did not work. */
export async function signedIn(stack: Stack, user: { username: string; password: string }) {
  const client = new DashboardClient(stack);
  const response = await client.signIn(user.username, user.password);
  if (response.status !== 303 || !client.cookies.has("svc_dash"))
    throw new Error(`sign-in failed: ${response.status} ${response.text.slice(0, 300)}`);
  return client;
}

/**
 * The `svc dev` demo merchant on a test stack: the dashboard user `demo` with every permission,
 * as written to .svc/dev-credentials.json, plus a TestMerchant view of it for the API helpers.
 */
export async function seedDemo(stack: Stack) {
  const { seedDemoMerchant } = await import("../../packages/service/src/dev/seed.js");
  const credentials = await seedDemoMerchant(stack.service.app, stack.config, undefined);
  const merchant = {
    id: "",
    rootDomain: credentials.merchant_id,
    privateKey: credentials.private_key,
    publicKey: credentials.public_key,
    webhookSecret: credentials.webhook_secret,
    pg: {
      sandbox: credentials.pg_codes.sandbox,
      authorize: credentials.pg_codes.sandbox_authorize,
      queued: credentials.pg_codes.sandbox_queued,
      ndebit: credentials.pg_codes.ndebit,
    },
    admin: credentials.dashboard,
  } satisfies TestMerchant;
  return { credentials, merchant };
}
