import { defineConfig } from "vitest/config";

// The fault suite (test/faults, docs/operations.md "The fault suite"): svc processes on a
// PostgreSQL cluster of the suite's own, crashed, frozen and killed on a timeline. Its files are
// named *.faults.ts so the main config's *.test.ts never picks them up; `npm test` runs this after
// the main suite has passed (alone: timings must not compete with other tests for the CPU), and
// `npm run test:faults` runs it by itself.
export default defineConfig({
  test: {
    include: ["test/faults/**/*.faults.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 240_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
