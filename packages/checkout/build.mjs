/**
 * Builds the SDK with esbuild:
 * - dist/index.js (+ chunks): ESM for bundlers, code-split so the error reporter is its own chunk;
 * - dist/svc-checkout.js: the minified single-file script (global `SvcCheckout`), and
 *   dist/svc-checkout-reporter.js, which it imports only when error reporting is enabled.
 * `node build.mjs --script` builds the script files only (what the service serves).
 * Types come from `tsc -p tsconfig.build.json` (the package's `build` script).
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const TARGET = "es2020";

/** The script build loads the reporter from its own file by URL: keep its code out of the bundle. */
const reporterOutside = {
  name: "reporter-outside",
  setup(b) {
    b.onResolve({ filter: /^\.\/(reporter|popup-view)\.js$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

export async function buildSdk({ esm = true, script = true, outdir = path.join(here, "dist") } = {}) {
  const { build } = await import("esbuild");
  // UTF-8 output: Arabic texts as 2-byte characters instead of 6-byte \\u escapes (the service sends charset=utf-8).
  const common = {
    bundle: true,
    target: TARGET,
    logLevel: "warning",
    legalComments: "none",
    charset: "utf8",
  };
  const jobs = [];
  if (esm)
    jobs.push(
      build({
        ...common,
        entryPoints: [path.join(here, "src/index.ts")],
        outdir,
        format: "esm",
        splitting: true,
        chunkNames: "chunks/[name]-[hash]",
      }),
    );
  if (script)
    jobs.push(
      build({
        ...common,
        entryPoints: [path.join(here, "src/script-tag.ts")],
        outfile: path.join(outdir, "svc-checkout.js"),
        format: "iife",
        minify: true,
        define: { SVC_SCRIPT_BUILD: "true" },
        plugins: [reporterOutside],
      }),
      build({
        ...common,
        entryPoints: [path.join(here, "src/reporter/reporter.ts")],
        outfile: path.join(outdir, "svc-checkout-reporter.js"),
        format: "esm",
        minify: true,
      }),
      build({
        ...common,
        entryPoints: [path.join(here, "src/popup/popup-view.ts")],
        outfile: path.join(outdir, "svc-checkout-popup.js"),
        format: "esm",
        minify: true,
      }),
    );
  await Promise.all(jobs);
  return outdir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const scriptOnly = process.argv.includes("--script");
  await buildSdk({ esm: !scriptOnly });
}
