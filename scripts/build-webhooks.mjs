#!/usr/bin/env node
/**
 * Builds @svc/webhooks (packages/webhooks/dist) when it is missing or older than its sources.
 * The package publishes `dist` (its `exports` point there), and the service signs with it, so a
 * fresh `npm ci` (the root `prepare` script) and every `npm test` / `npm run bench` / `npm run lint`
 * (their `pre` scripts) make sure it exists and is current. A no-op when it already is.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pkg = path.join(root, "packages", "webhooks");
const built = path.join(pkg, "dist", "index.js");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
      newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

if (!existsSync(pkg)) process.exit(0);
const stale =
  !existsSync(built) ||
  statSync(built).mtimeMs < newestSource(path.join(pkg, "src")) ||
  statSync(built).mtimeMs < statSync(path.join(pkg, "tsconfig.build.json")).mtimeMs;
if (stale) {
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", path.join(pkg, "tsconfig.build.json")], {
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error("building @svc/webhooks failed");
    process.exit(r.status ?? 1);
  }
}
