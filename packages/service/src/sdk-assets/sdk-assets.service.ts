/**
 * The checkout SDK's single-file build, served by the service at /sdk/. The files come from
 * packages/checkout/dist; when they are missing (a fresh clone), they are built once with the
 * SDK's own esbuild script, so `npm start` and the tests need no separate build step.
 *
 * Each build has a version (a hash of its files): `/sdk/{version}/svc-checkout.js` is immutable
 * and its Subresource Integrity hash is published in `/sdk/manifest.json`. Every file is kept
 * brotli- and gzip-compressed, compressed once when it is first read.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const CHECKOUT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../checkout");
export const SDK_FILES = ["svc-checkout.js", "svc-checkout-reporter.js", "svc-checkout-popup.js"] as const;
export type SdkFile = (typeof SDK_FILES)[number];

export interface SdkFileBody {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
  /** `sha384-…` of the uncompressed file, for the script tag's `integrity` attribute. */
  integrity: string;
}

export interface SdkBuild {
  /** 16 hex characters of a SHA-256 over every file: changes with any byte of the build. */
  version: string;
  files: Record<SdkFile, SdkFileBody>;
}

/** The manifest served at `/sdk/manifest.json` (paths relative to the service's origin). */
export function manifestOf(build: SdkBuild) {
  return {
    version: build.version,
    files: Object.fromEntries(
      SDK_FILES.map((f) => [
        f,
        {
          path: `/sdk/${build.version}/${f}`,
          integrity: build.files[f].integrity,
          bytes: build.files[f].identity.length,
          gzip_bytes: build.files[f].gzip.length,
          brotli_bytes: build.files[f].br.length,
        },
      ]),
    ),
  };
}

export function compressFile(identity: Buffer): SdkFileBody {
  return {
    identity,
    br: brotliCompressSync(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
    gzip: gzipSync(identity, { level: 9 }),
    integrity: `sha384-${createHash("sha384").update(identity).digest("base64")}`,
  };
}

export function createSdkAssets(distDir = path.join(CHECKOUT_DIR, "dist")) {
  let building: Promise<void> | undefined;
  let loaded: Promise<SdkBuild> | undefined;

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

  async function load(): Promise<SdkBuild> {
    await ensureBuilt();
    const hash = createHash("sha256");
    const files = {} as Record<SdkFile, SdkFileBody>;
    for (const f of SDK_FILES) {
      const identity = await readFile(path.join(distDir, f));
      hash.update(f).update("\0").update(identity);
      files[f] = compressFile(identity);
    }
    return { version: hash.digest("hex").slice(0, 16), files };
  }

  return {
    /** The build (read, hashed and compressed once per process); builds the SDK first when it is missing. */
    build(): Promise<SdkBuild> {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      return loaded;
    },
  };
}

export type SdkAssets = ReturnType<typeof createSdkAssets>;

let shared: SdkAssets | undefined;
/** The process's one view of the built SDK: the /sdk/ routes and the dashboard's install snippet. */
export function sharedSdkAssets(): SdkAssets {
  shared ??= createSdkAssets();
  return shared;
}

/**
 * The script tag a merchant copies: the immutable URL of the running build with its integrity.
 * @example
 * scriptTag("https://shop.example.com", build) // '<script src="…/sdk/0123…/svc-checkout.js" integrity="sha384-…" crossorigin="anonymous"></script>'
 */
export function scriptTag(origin: string, build: SdkBuild): string {
  const file = build.files["svc-checkout.js"];
  return `<script src="${origin}/sdk/${build.version}/svc-checkout.js" integrity="${file.integrity}" crossorigin="anonymous"></script>`;
}
