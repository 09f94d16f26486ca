import { defineConfig } from "vitest/config";

// One runner for the whole repo. Test files run in forked processes (PGlite is WebAssembly and
// wants its own process); two at a time on this 2-core machine.
export default defineConfig({
  // @svc/webhooks' "#mac" (its package.json "imports") resolves to its sources, Node's HMAC.
  ssr: { resolve: { conditions: ["svc-source", "node", "development|production"] } },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "test/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    // The checkout SDK's script build, served by the service to the Chromium tests.
    globalSetup: ["test/e2e/support/build-sdk.ts"],
  },
});
