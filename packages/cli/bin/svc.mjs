#!/usr/bin/env node
// The `svc` binary. The command is dist/svc.mjs, built by the repository's `npm ci` (its prepare
// script) or `npm run build -w @svc/cli`; this file is committed so npm can link the binary
// before that build has run.
try {
  await import("../dist/svc.mjs");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("svc.mjs")) throw error;
  process.stderr.write(
    "svc is not built yet: run `npm run build -w @svc/cli` (or `npm ci`) in the repository.\n",
  );
  process.exitCode = 2;
}
