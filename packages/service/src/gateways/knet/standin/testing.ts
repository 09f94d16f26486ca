/**
 * Fixtures of the stand-in's own tests: a stand-in with two terminals, and a tiny real merchant
 * on loopback (node:http) that decrypts KNET's response with svc's wire module and answers as
 * the test tells it (by default `REDIRECT=<receipt>`).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { PAYMENT_INIT_ORDER, parseKnetPairs } from "../fields.js";
import { decryptTrandata, encryptTrandata } from "../trandata.js";
import { parseTranPipe, tranPipeBody } from "../xml.js";
import { startKnetStandIn } from "./server.js";
import type { KnetStandIn, KnetStandInOptions, KnetStandInTerminal } from "./types.js";

export const TERMINAL: KnetStandInTerminal = {
  tranportalId: "123401",
  password: "123401pg",
  resourceKey: "1234567890123456",
};
export const OTHER_TERMINAL: KnetStandInTerminal = {
  tranportalId: "777701",
  password: "777701pg",
  resourceKey: "K7c9Qw2Lm4Xz8Rt1",
};
export const RECEIPT_URL = "https://shop.example/knet/receipt";
export const ERROR_URL = "https://shop.example/knet/error";

export interface MerchantPost {
  contentType: string;
  form: Record<string, string>;
  /** The decrypted trandata, when there was one. */
  fields?: Record<string, string>;
  /** The decrypted trandata's names, in their order. */
  order?: string[];
}

/** How the merchant answers KNET: a status and body after a delay, or a dropped connection. */
export type MerchantReply = { status?: number; body: string; delayMs?: number } | "hang-up";

export interface Merchant {
  /** The responseURL. */
  url: string;
  posts: MerchantPost[];
  reply: (post: MerchantPost) => MerchantReply | Promise<MerchantReply>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}

export async function startMerchant(resourceKey: string): Promise<Merchant> {
  const merchant: Merchant = {
    url: "",
    posts: [],
    reply: () => ({ body: `REDIRECT=${RECEIPT_URL}` }),
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const form = Object.fromEntries(new URLSearchParams(await bodyOf(req)));
    const post: MerchantPost = { contentType: req.headers["content-type"] ?? "", form };
    if (form.trandata) {
      try {
        const plain = decryptTrandata(form.trandata, resourceKey);
        post.fields = parseKnetPairs(plain);
        post.order = plain.split("&").map((pair) => pair.split("=")[0]!);
      } catch {
        // Another terminal's response: the test sees a post without fields.
      }
    }
    merchant.posts.push(post);
    const reply = await merchant.reply(post);
    if (reply === "hang-up") return req.socket.destroy();
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (!res.destroyed) res.writeHead(reply.status ?? 200, { "content-type": "text/plain" }).end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  merchant.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/knet/response`;
  merchant.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return merchant;
}

export interface Fixture {
  knet: KnetStandIn;
  merchant: Merchant;
  /** A new track id, unique in this test file. */
  trackId(): string;
  /**
   * A payment-initialisation URL: the kit's fields (overridden; undefined leaves one out) joined
   * as they are, encrypted with `key`; `query` overrides the URL's other parameters.
   */
  initUrl(
    fields?: Record<string, string | undefined>,
    options?: { terminal?: KnetStandInTerminal; key?: string; query?: Record<string, string | undefined> },
  ): string;
  close(): Promise<void>;
}

let counter = 0;

export async function startFixture(options: Partial<KnetStandInOptions> = {}): Promise<Fixture> {
  const knet = await startKnetStandIn({ terminals: [TERMINAL, OTHER_TERMINAL], ...options });
  const merchant = await startMerchant(TERMINAL.resourceKey);
  const trackId = () => `trk${Date.now().toString(36)}${(counter++).toString(36)}`;
  return {
    knet,
    merchant,
    trackId,
    initUrl(overrides = {}, { terminal = TERMINAL, key, query = {} } = {}) {
      const fields: Record<string, string | undefined> = {
        id: terminal.tranportalId,
        password: terminal.password,
        action: "1",
        langid: "USA",
        currencycode: "414",
        amt: "20.550",
        responseURL: merchant.url,
        errorURL: ERROR_URL,
        trackid: trackId(),
        ...Object.fromEntries(PAYMENT_INIT_ORDER.slice(9).map((n) => [n, ""])),
        ...overrides,
      };
      const plain = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${v}`)
        .join("&");
      const params: Record<string, string | undefined> = {
        param: "paymentInit",
        trandata: encryptTrandata(plain, key ?? terminal.resourceKey),
        tranportalId: terminal.tranportalId,
        responseURL: merchant.url,
        errorURL: ERROR_URL,
        ...query,
      };
      const search = new URLSearchParams(
        Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
      );
      return `${knet.url}/kpg/PaymentHTTP.htm?${search}`;
    },
    async close() {
      await knet.close();
      await merchant.close();
    },
  };
}

/** One server-API call, as svc would make it; the answer's text and its fields. */
export async function callTranPipe(
  knet: KnetStandIn,
  fields: ReadonlyArray<readonly [string, string]>,
  contentType = "application/xml",
): Promise<{ status: number; text: string; fields: Record<string, string> }> {
  const response = await fetch(`${knet.url}/kpg/tranPipe.htm?param=tranInit`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: tranPipeBody(fields),
  });
  const text = await response.text();
  return { status: response.status, text, fields: parseTranPipe(text) };
}

/** The fields of an inquiry or refund on TERMINAL: `action`, then `transid` named by `udf5`. */
export function apiFields(
  action: "8" | "2",
  amt: string,
  transid: string,
  trackid: string,
  udf5: string,
  terminal: KnetStandInTerminal = TERMINAL,
): [string, string][] {
  return [
    ["id", terminal.tranportalId],
    ["password", terminal.password],
    ["action", action],
    ["amt", amt],
    ["transid", transid],
    ["trackid", trackid],
    ["udf5", udf5],
  ];
}
