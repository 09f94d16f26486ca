/**
 * The checkout SDK's single-file build, served by the service at /sdk/. The files come from
 * packages/checkout/dist; when they are missing (a fresh clone), they are built once with the
 * SDK's own esbuild script, so `npm start` and the tests need no separate build step.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const CHECKOUT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../checkout");
export const SDK_FILES = ["svc-checkout.js", "svc-checkout-reporter.js"] as const;
export type SdkFile = (typeof SDK_FILES)[number];

export function createSdkAssets(distDir = path.join(CHECKOUT_DIR, "dist")) {
  let building: Promise<void> | undefined;

  async function ensureBuilt(): Promise<void> {
    if (SDK_FILES.every((f) => existsSync(path.join(distDir, f)))) return;
    building ??= (async () => {
      const script = path.join(CHECKOUT_DIR, "build.mjs");
      const { buildSdk } = (await import(pathToFileURL(script).href)) as {
        buildSdk(options: { esm: boolean; outdir: string }): Promise<string>;
      };
      await buildSdk({ esm: false, outdir: distDir });
    })().finally(() => {
      building = undefined;
    });
    await building;
  }

  return {
    /** The file's contents; builds the SDK first when it has not been built. */
    async read(file: SdkFile): Promise<Buffer> {
      await ensureBuilt();
      return readFile(path.join(distDir, file));
    },
  };
}

export type SdkAssets = ReturnType<typeof createSdkAssets>;
