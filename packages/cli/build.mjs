#!/usr/bin/env node
/**
 * Builds the `svc` command to plain JavaScript: dist/svc.mjs, one ESM file for Node ≥ 20 with
 * commander and @svc/webhooks inside, so `npx svc listen|trigger|webhooks …` runs from the
 * installed package without tsx. `svc dev` and `svc serve` run the service, which is TypeScript
 * run by tsx: the bundle hands them to the sources beside it (src/main.ts) through tsx
 * (commands/service.ts).
 */
import { chmodSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

export async function buildCli(outfile = path.join(here, "dist", "svc.mjs")) {
  const { build } = await import("esbuild");
  await build({
    entryPoints: [path.join(here, "src", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    legalComments: "none",
    charset: "utf8",
    // commander is CommonJS: its require() of Node's modules needs a require in an ES module.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as __svcCreateRequire } from "node:module";\nconst require = __svcCreateRequire(import.meta.url);',
    },
    define: { "process.env.SVC_CLI_BUNDLE": '"1"' },
    // The service's commands stay out: the bundle runs them from the sources (see above).
    plugins: [
      {
        name: "service-commands-outside",
        setup(b) {
          b.onResolve({ filter: /^\.\/commands\/(dev|serve)\.js$/ }, (args) => ({
            path: args.path,
            external: true,
          }));
        },
      },
    ],
  });
  chmodSync(outfile, 0o755);
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await buildCli();
  console.log(`built ${path.relative(process.cwd(), out)}`);
}
