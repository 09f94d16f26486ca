/**
 * Starts the KNET stand-in: a node:http listener speaking KNET's published wire format for the
 * terminals given (see index.ts for what is KNET's and what is the stand-in's own).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { apiAmountFils } from "./amount.js";
import { Ledger } from "./ledger.js";
import { route, type RouterState } from "./router.js";
import type { KnetLedgerRefund, KnetStandIn, KnetStandInFaults, KnetStandInOptions } from "./types.js";

/** How long the merchant's responseURL has to answer by default. */
export const MERCHANT_TIMEOUT_MS = 10_000;
/** How long a payment page stays usable by default. */
export const PAGE_LIFETIME_MS = 15 * 60_000;
/** A terminal resource key, in bytes. */
const RESOURCE_KEY_BYTES = 16;

/**
 * Starts a stand-in for KNET's terminals; `close()` it after the test.
 *
 * @example
 * const knet = await startKnetStandIn({
 *   terminals: [{ tranportalId: "123401", password: "123401pg", resourceKey: "1234567890123456" }],
 * });
 * // svc's KNET setting: api_base_url = knet.url
 * const paid = knet.payments().filter((p) => p.result === "CAPTURED" && !p.voided);
 * await knet.close();
 */
export async function startKnetStandIn(options: KnetStandInOptions): Promise<KnetStandIn> {
  for (const terminal of options.terminals)
    if (Buffer.byteLength(terminal.resourceKey, "utf8") !== RESOURCE_KEY_BYTES)
      throw new Error(`KNET stand-in: terminal ${terminal.tranportalId}'s resource key is not 16 bytes`);
  const host = options.host ?? "127.0.0.1";
  const faults: KnetStandInFaults = {
    dropResponseNotification: false,
    loseRefundAnswers: 0,
    tranPipeDelayMs: 0,
  };
  const stop = new AbortController();
  let url = "";
  const state: RouterState = {
    ledger: new Ledger(options.terminals),
    faults,
    merchantTimeoutMs: options.merchantTimeoutMs ?? MERCHANT_TIMEOUT_MS,
    pageLifetimeMs: options.pageLifetimeMs ?? PAGE_LIFETIME_MS,
    stop: stop.signal,
    requests: [],
    publicUrl: () => (options.publicUrl ?? url).replace(/\/+$/, ""),
  };
  const server = createServer((req, res) => {
    route(state, req, res).catch(() => {
      if (res.headersSent || stop.signal.aborted) res.destroy();
      else res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("KNET stand-in error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    requests: state.requests,
    faults,
    payments: () => state.ledger.snapshot(),
    portalRefund(trackId: string, amount: string): KnetLedgerRefund {
      const payment = state.ledger.byTrackId(trackId);
      if (!payment) throw new Error(`KNET stand-in: no payment has track id ${trackId}`);
      return structuredClone(state.ledger.refund(payment, apiAmountFils(amount), "portal"));
    },
    async close() {
      stop.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
