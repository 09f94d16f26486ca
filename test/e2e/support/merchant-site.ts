/**
 * A merchant's own site on another loopback origin than the service (so every SDK call is
 * cross-origin and needs CORS), serving pages under a strict CSP with a per-page nonce.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface PageSpec {
  /** Body of the nonce'd script run before the SDK loads (fakes, globals). */
  before?: string;
  /** Body of the nonce'd script run after the SDK loaded. */
  after: string;
  /** Attributes of the SDK script tag, e.g. data-success. */
  scriptAttrs?: Record<string, string>;
  lang?: string;
}

export interface MerchantSite {
  url: string;
  /** Registers a page; returns its URL. */
  page(spec: PageSpec): string;
  close(): Promise<void>;
}

export async function startMerchantSite(serviceUrl: string): Promise<MerchantSite> {
  const pages = new Map<string, PageSpec>();
  let counter = 0;
  const server = http.createServer((req, res) => {
    const spec = pages.get((req.url ?? "").split("?")[0]!);
    if (!spec) {
      res.writeHead(404).end();
      return;
    }
    const nonce = randomBytes(12).toString("base64");
    const attrs = Object.entries(spec.scriptAttrs ?? {})
      .map(([k, v]) => ` ${k}="${v}"`)
      .join("");
    const html = `<!doctype html><html lang="${spec.lang ?? "en"}"><head><meta charset="utf-8"><title>Merchant shop</title>
<style nonce="${nonce}">body{font-family:sans-serif;margin:16px}</style></head>
<body><main><h1>Merchant shop</h1><div id="checkout"></div></main>
<script nonce="${nonce}">window.__nonce=${JSON.stringify(nonce)};window.__violations=[];
document.addEventListener("securitypolicyviolation",function(e){window.__violations.push(e.violatedDirective+" "+e.blockedURI)});
window.__calls=[];window.__t0=performance.now();${spec.before ?? ""}</script>
<script nonce="${nonce}" src="${serviceUrl}/sdk/svc-checkout.js"${attrs}></script>
<script nonce="${nonce}">${spec.after}</script></body></html>`;
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'nonce-${nonce}'; connect-src ${serviceUrl}; img-src data:`,
    });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    page(spec) {
      const path = `/shop-${++counter}`;
      pages.set(path, spec);
      return url + path;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
