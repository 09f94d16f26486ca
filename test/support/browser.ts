/**
 * Debian's Chromium driven by playwright-core (no browser downloads). One persistent context per
 * test file; the flags keep Chromium off the network, which this machine does not have anyway.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: { locale?: string; colorScheme?: "light" | "dark"; bypassCSP?: boolean } = {},
): Promise<Browser> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    locale: options.locale ?? "en-US",
    colorScheme: options.colorScheme ?? "light",
    // Only for injecting axe into pages whose CSP (rightly) forbids foreign scripts.
    bypassCSP: options.bypassCSP ?? false,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
