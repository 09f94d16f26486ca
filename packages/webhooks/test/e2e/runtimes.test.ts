// The built library (dist/, what the package ships) in Bun and Deno, the runtimes the README
// names besides Node and browsers. Their binaries come from the npm registry as the root's
// optional dependencies (@oven/bun-linux-x64, @deno/linux-x64-glibc); on another platform they
// are not installed and this file is skipped, except under CI, where it must run.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestHeaders } from "../../src/signing.js";
import { OTHER_SECRET, operationPayload, paymentPayload, SECRET } from "../fixtures.js";

const require = createRequire(import.meta.url);
const dist = path.resolve(import.meta.dirname, "../../dist");

/** The runtime's binary inside its npm package, if that package is installed here. */
function binary(pkg: string, file: string): string | undefined {
  try {
    const bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const RUNTIMES = {
  bun: { bin: binary("@oven/bun-linux-x64", "bin/bun"), args: ["run"] },
  deno: { bin: binary("@deno/linux-x64-glibc", "deno"), args: ["run", "--allow-read", "--no-lock"] },
};

// What the script does in the runtime: verify each sample with the default HMAC (node:crypto's
// one-shot hash: Bun and Deno resolve "#mac" under the "node" condition) and again on the Web
// Crypto path (mac-web.js, what browsers get), and refuse a tampered body and a wrong secret.
const SCRIPT = `
import { verifyWebhook } from "@svc/webhooks";
import { useMac } from "./node_modules/@svc/webhooks/dist/hmac.js";
import { createMac as webMac } from "./node_modules/@svc/webhooks/dist/mac-web.js";
import crypto from "node:crypto";
const { samples, secret, otherSecret } = JSON.parse(await (await import("node:fs/promises")).readFile(process.argv.at(-1), "utf8"));
const code = (p) => p.then(() => "accepted", (e) => e.code ?? String(e));
const out = { fastPath: typeof crypto.hash === "function" };
for (const webCrypto of [false, true]) {
  useMac(webCrypto ? webMac : undefined);
  const key = webCrypto ? "webCrypto" : "default";
  out[key] = [];
  for (const { body, headers } of samples) {
    const event = await verifyWebhook(body, headers, secret);
    out[key].push({
      type: event.type,
      id: event.id,
      result: event.payload.result ?? event.payload.state,
      tampered: await code(verifyWebhook(body.replace("sess_parent_01", "sess_parent_02"), headers, secret)),
      wrongSecret: await code(verifyWebhook(body, headers, otherSecret)),
    });
  }
}
console.log(JSON.stringify(out));
`;

let work: string;
let input: string;
let expected: { type: string; id: string; result: string; tampered: string; wrongSecret: string }[];

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "webhooks-runtimes-"));
  const samples = [
    await generateTestHeaders(operationPayload(), SECRET, { id: "msg_runtime_op" }),
    await generateTestHeaders(paymentPayload(), SECRET, { id: "msg_runtime_pay" }),
  ];
  // Installed as from npm (package.json and dist in node_modules), so that the runtime resolves
  // "@svc/webhooks" and the package's "#mac" import under its own conditions.
  const installed = path.join(work, "node_modules/@svc/webhooks");
  await cp(dist, path.join(installed, "dist"), { recursive: true });
  await cp(path.join(dist, "../package.json"), path.join(installed, "package.json"));
  await writeFile(path.join(work, "package.json"), JSON.stringify({ type: "module", private: true }));
  input = path.join(work, "input.json");
  await writeFile(input, JSON.stringify({ samples, secret: SECRET, otherSecret: OTHER_SECRET }));
  await writeFile(path.join(work, "check.mjs"), SCRIPT);
  expected = [
    {
      type: "operation",
      id: "msg_runtime_op",
      result: "success",
      tampered: "signature_mismatch",
      wrongSecret: "signature_mismatch",
    },
    {
      type: "payment",
      id: "msg_runtime_pay",
      result: "paid",
      tampered: "signature_mismatch",
      wrongSecret: "signature_mismatch",
    },
  ];
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(Object.entries(RUNTIMES))("@svc/webhooks in %s", (name, runtime) => {
  it.skipIf(!runtime.bin && !process.env.CI)(
    "verifies operation and payment webhooks on both HMAC paths and refuses tampering",
    { timeout: 60_000 },
    () => {
      expect(runtime.bin, `${name} is an optional dependency of the root package: run npm ci`).toBeDefined();
      const stdout = execFileSync(runtime.bin!, [...runtime.args, path.join(work, "check.mjs"), input], {
        cwd: work,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
        timeout: 50_000,
      });
      const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
      expect(out.fastPath, `${name}'s node:crypto has the one-shot hash`).toBe(true);
      expect(out.default).toEqual(expected);
      expect(out.webCrypto).toEqual(expected);
    },
  );
});
