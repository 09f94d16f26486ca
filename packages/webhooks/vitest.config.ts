import { defineConfig } from "vitest/config";

export default defineConfig({
  // "#mac" (package.json "imports") resolves to the sources under this condition, Node's HMAC.
  ssr: { resolve: { conditions: ["svc-source", "module", "node", "development|production"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The e2e tests pack a tarball and start Chromium: generous, but bounded.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
