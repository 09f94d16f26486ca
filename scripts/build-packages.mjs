#!/usr/bin/env node
/**
 * Builds the libraries other packages import from their `dist` — @svc/webhooks (the service
 * signs with it) and @svc/checkout-core (both checkout SDKs are built on it) — when a `dist` is
 * missing or older than its sources. Each publishes `dist` (its `exports` point there), so a
 * fresh `npm ci` (the root `prepare` script) and every `npm test` / `npm run bench` /
 * `npm run lint` / `npm start` (their `pre` scripts) make sure they exist and are current. A
 * no-op when they already are.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["webhooks", "checkout-core"];

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

for (const name of PACKAGES) {
  const pkg = path.join(root, "packages", name);
  const built = path.join(pkg, "dist", "index.js");
  if (!existsSync(pkg)) continue;
  const stale =
    !existsSync(built) ||
    statSync(built).mtimeMs < newestSource(path.join(pkg, "src")) ||
    statSync(built).mtimeMs < statSync(path.join(pkg, "tsconfig.build.json")).mtimeMs;
  if (!stale) continue;
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", path.join(pkg, "tsconfig.build.json")], {
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error(`building @svc/${name} failed`);
    process.exit(r.status ?? 1);
  }
}
