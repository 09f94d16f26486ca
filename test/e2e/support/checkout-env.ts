/**
 * One environment per e2e file: the real stack (service + sandbox gateway on PGlite), a merchant
 * whose root domain is the service's own host (so the SDK's base URL rule reaches it), the
 * merchant's site on another origin, and one Chromium.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page, Request } from "playwright-core";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../../support/merchant.js";
import { type Stack, startStack } from "../../support/stack.js";
import { type Browser, launchBrowser } from "../../support/browser.js";
import { type MerchantSite, startMerchantSite } from "./merchant-site.js";

export type WalletMode = "supported" | "nocards" | "unsupported";

export interface MountOptions {
  /** Overrides of the transaction body (pg_codes, customer_id, language…). */
  tx?: Record<string, unknown>;
  /** Pass the Checkout API's preload (default true). */
  preload?: boolean;
  formsOfPayment?: string[];
  /** A JS expression evaluated in the page, e.g. `new SvcCheckout.CheckoutTheme({…})`. */
  themeJs?: string;
  wallet?: WalletMode;
  colorScheme?: "light" | "dark";
  /** Use `new SvcCheckout.Checkout({delegate})` instead of the script tag's data-* callbacks. */
  delegateObject?: boolean;
  /** Mount an existing transaction instead of creating one. */
  existing?: Mounted["tx"];
  /** Another browser (e.g. one launched with an Arabic locale). */
  browser?: Browser;
  viewport?: { width: number; height: number };
  /** Runs on the new page before it loads (e.g. to hold a request with page.route). */
  beforeGoto?: (page: Page) => Promise<unknown>;
  /** Wait until the view is ready (aria-busy=false); default true. */
  waitReady?: boolean;
}

export interface Mounted {
  page: Page;
  tx: { session_id: string; order_no: string | null; sdk_setup_preload_payload: unknown };
  requests: Request[];
  errors: Error[];
}

/** A fake device wallet in the page: supported with cards, without cards, or unsupported. */
export function fakeWalletA(mode: WalletMode): string {
  return `window.__walletA={setupOpened:0,token:"tok-device",cards:${mode === "supported"}};
window.WalletASession=class{
static canMakePayments(){return ${mode !== "unsupported"}}
static canMakePaymentsWithActiveCard(id){window.__walletA.checkedId=id;return Promise.resolve(window.__walletA.cards)}
static openPaymentSetup(){window.__walletA.setupOpened++;window.__walletA.cards=true;return Promise.resolve(true)}
constructor(v,r){window.__walletA.request=r;this.onpaymentauthorized=null;this.oncancel=null}
begin(){var s=this;setTimeout(function(){s.onpaymentauthorized({payment:{token:{paymentData:window.__walletA.token}}})},10)}
completePayment(ok){window.__walletA.completed=ok}};`;
}

export class CheckoutEnv {
  private constructor(
    readonly stack: Stack,
    readonly merchant: TestMerchant,
    readonly site: MerchantSite,
    readonly browser: Browser,
  ) {}

  static async start(options: { locale?: string } = {}): Promise<CheckoutEnv> {
    const stack = await startStack("pglite");
    const merchant = await createMerchant(stack, { rootDomain: new URL(stack.url).host });
    const [site, browser] = await Promise.all([startMerchantSite(stack.url), launchBrowser(options)]);
    return new CheckoutEnv(stack, merchant, site, browser);
  }

  get merchantId(): string {
    return new URL(this.stack.url).host;
  }

  async transaction(overrides: Record<string, unknown> = {}) {
    const r = await createTransaction(this.stack, this.merchant, {
      order_no: `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      include_sdk_setup_preload: true,
      ...overrides,
    });
    if (r.status !== 201) throw new Error(`transaction: ${r.status} ${r.text}`);
    return r.json as Mounted["tx"];
  }

  /** The payment's state as the merchant's backend sees it. */
  async state(sessionId: string): Promise<string> {
    return (
      await api(this.stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(this.merchant.privateKey) })
    ).json.state;
  }

  async mount(options: MountOptions = {}): Promise<Mounted> {
    const tx = options.existing ?? (await this.transaction(options.tx));
    const config = {
      selector: "#checkout",
      merchantId: this.merchantId,
      apiKey: this.merchant.publicKey,
      sessionId: tx.session_id,
      ...(options.preload === false ? {} : { setupPreload: tx.sdk_setup_preload_payload }),
      ...(options.formsOfPayment ? { formsOfPayment: options.formsOfPayment } : {}),
    };
    const init = options.delegateObject
      ? `var c=new SvcCheckout.Checkout(Object.assign(cfg,{delegate:{successCallback:rec("success"),cancelCallback:rec("cancel"),errorCallback:rec("error")}}));document.querySelector("#checkout").append(c.paymentView());`
      : "SvcCheckout.init(cfg);";
    const url = this.site.page({
      before: `${options.wallet ? fakeWalletA(options.wallet) : ""}
function rec(n){return function(d){window.__calls.push([n,d])}}
var onSuccess=rec("success"),onCancel=rec("cancel"),onError=rec("error");`,
      scriptAttrs: { "data-success": "onSuccess", "data-cancel": "onCancel", "data-error": "onError" },
      after: `var cfg=${JSON.stringify(config).replace(/</g, "\\u003c")};cfg.nonce=window.__nonce;
${options.themeJs ? `cfg.theme=${options.themeJs};` : ""}${init}window.__t1=performance.now();`,
    });
    const page = await (options.browser ?? this.browser).context.newPage();
    const requests: Request[] = [];
    const errors: Error[] = [];
    page.on("request", (r) => requests.push(r));
    page.on("pageerror", (e) => errors.push(e));
    await page.emulateMedia({ colorScheme: options.colorScheme ?? "light" });
    if (options.viewport) await page.setViewportSize(options.viewport);
    await options.beforeGoto?.(page);
    await page.goto(url);
    if (options.waitReady !== false) await page.locator(".svc-checkout[aria-busy=false]").waitFor();
    return { page, tx, requests, errors };
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.site.close();
    await this.stack.close();
  }
}

/** Waits for the first callback and returns `[name, data]`. */
export async function callback(page: Page): Promise<[string, Record<string, unknown>]> {
  await page.waitForFunction(() => (window as unknown as { __calls: unknown[] }).__calls.length > 0);
  return page.evaluate(
    () => (window as unknown as { __calls: [string, Record<string, unknown>][] }).__calls[0]!,
  );
}

export const option = (page: Page, form: string) => page.locator(`[data-form-of-payment="${form}"]`);

/** Selects an option (a click on its row, as a customer does); its primary action then shows. */
export async function choose(page: Page, form: string, token?: string): Promise<void> {
  const row = token
    ? page.locator(`[data-token="${token}"].op`)
    : page.locator(`.op[data-form-of-payment="${form}"]`).first();
  await row.locator("label.oh").click();
  await row.locator(".ob").waitFor();
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's violations on the whole page (evaluated through the devtools protocol, so the CSP stays strict). */
export async function axeViolations(page: Page): Promise<{ id: string; nodes: unknown[] }[]> {
  await page.evaluate(`${axeSource};0`);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document): Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target) }));
  });
}

/** Inline `style` attributes anywhere, the view's shadow root included; and CSP violations seen. */
export function styleAudit(page: Page) {
  return page.evaluate(() => {
    const host = document.querySelector(".svc-checkout")!;
    return {
      inlineStyles:
        document.querySelectorAll("[style]").length + host.shadowRoot!.querySelectorAll("[style]").length,
      violations: (window as unknown as { __violations: string[] }).__violations,
    };
  });
}
