// The Web Crypto HMAC (mac-web.ts, what browsers and workers get) forced in Node, or Node's own
// back (false): tests and the receiver bench run both paths in one process.
import { useMac } from "../src/hmac.js";
import { createMac } from "../src/mac-web.js";

export const forceWebCrypto = (force: boolean): void => useMac(force ? createMac : undefined);
