// Composite test: build, `npm pack`, install the tarball into fresh ESM and TypeScript projects
// and use it there exactly as a merchant would. Catches broken exports, missing files and types.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestHeaders } from "../../src/signing.js";
import { operationPayload, SECRET } from "../fixtures.js";

const pkgDir = path.resolve(import.meta.dirname, "../..");
const repoRoot = path.resolve(pkgDir, "../..");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let work: string;
let tarball: string;

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
}

async function project(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
  run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], dir);
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "webhooks-tarball-"));
  run(process.execPath, [tsc, "-p", "tsconfig.build.json"], pkgDir);
  run("npm", ["pack", "--pack-destination", work], pkgDir);
  tarball = path.join(
    work,
    (await readdir(work)).find((f) => f.endsWith(".tgz"))!,
  );
}, 60_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
}, 30_000);

// Timeouts are set here, not in vitest.config.ts, so they also hold when run from the repo root.
describe("the packed tarball", { timeout: 60_000 }, () => {
  it("ships only dist and package files, and has zero dependencies", () => {
    const listing = run("tar", ["-tzf", tarball], work).split("\n").filter(Boolean);
    expect(listing.every((f) => /^package\/(dist\/|package\.json$|README\.md$|LICENSE)/.test(f))).toBe(true);
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing.some((f) => f.includes(".test."))).toBe(false);
    const manifest = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], work));
    expect(manifest.dependencies).toBeUndefined();
  });

  it("verifies a sample in a fresh ESM project", async () => {
    const sample = await generateTestHeaders(operationPayload(), SECRET);
    const dir = await project("esm", {
      "package.json": JSON.stringify({ name: "esm-sample", private: true, type: "module" }),
      "sample.json": JSON.stringify({ ...sample, secret: SECRET }),
      "index.js": `
import { readFileSync } from "node:fs";
import { verifyWebhook } from "@svc/webhooks";
import { createWebhookHandler } from "@svc/webhooks/fetch";
import { webhookMiddleware } from "@svc/webhooks/node";
import { svcWebhooks } from "@svc/webhooks/fastify";
const { body, headers, secret } = JSON.parse(readFileSync("sample.json", "utf8"));
const event = await verifyWebhook(body, headers, secret);
const handler = createWebhookHandler({ secrets: secret, onEvent: () => {} });
const res = await handler(new Request("http://x/", { method: "POST", body, headers }));
console.log(JSON.stringify({ type: event.type, ref: event.payload.reference_number, status: res.status,
  adapters: [typeof webhookMiddleware, typeof svcWebhooks] }));
`,
    });
    const out = JSON.parse(run(process.execPath, ["index.js"], dir));
    expect(out).toEqual({
      type: "operation",
      ref: "REF-7Q2K9",
      status: 200,
      adapters: ["function", "function"],
    });
  });

  it("signs and verifies without node:crypto's hash and global crypto, as on Node 18 (createHmac)", async () => {
    const dir = await project("node18", {
      "package.json": JSON.stringify({ name: "node18-sample", private: true, type: "module" }),
      "index.js": `
import { verifyWebhook } from "@svc/webhooks";
import { generateTestHeaders } from "@svc/webhooks/sign";
const secret = "${SECRET}";
const { body, headers } = await generateTestHeaders(${JSON.stringify(operationPayload())}, secret);
const event = await verifyWebhook(body, headers, secret);
const tampered = await verifyWebhook(body.replace("REF-7Q2K9", "REF-0"), headers, secret).catch((e) => e.code);
const hash = typeof (await import("node:crypto")).default.hash;
console.log(JSON.stringify({ ref: event.payload.reference_number, tampered, crypto: typeof crypto, hash }));
`,
    });
    // What Node 18 lacks: the global crypto (without a flag), process.getBuiltinModule and
    // node:crypto's one-shot hash.
    const node18 =
      'data:text/javascript,import c from "node:crypto"; delete c.hash; delete globalThis.crypto; delete process.getBuiltinModule;';
    const out = JSON.parse(run(process.execPath, ["--import", node18, "index.js"], dir));
    expect(out).toEqual({
      ref: "REF-7Q2K9",
      tampered: "signature_mismatch",
      crypto: "undefined",
      hash: "undefined",
    });
  });

  it("loads with require() in a CommonJS project where Node loads ES modules that way", async () => {
    const sample = await generateTestHeaders(operationPayload(), SECRET);
    const dir = await project("cjs", {
      "package.json": JSON.stringify({ name: "cjs-sample", private: true, type: "commonjs" }),
      "sample.json": JSON.stringify({ ...sample, secret: SECRET }),
      "index.js": `
const { verifyWebhook } = require("@svc/webhooks");
const { body, headers, secret } = require("./sample.json");
verifyWebhook(body, headers, secret).then((event) => console.log(event.payload.reference_number));
`,
    });
    // Unflagged from Node 22.12; Node 20.17+ needs the flag.
    const flag = Number(process.versions.node.split(".")[0]) < 22 ? ["--experimental-require-module"] : [];
    expect(run(process.execPath, [...flag, "--no-warnings", "index.js"], dir).trim()).toBe("REF-7Q2K9");
  });

  it("type-checks and runs in fresh TypeScript projects, for Node and for browsers", async () => {
    const dir = await project("ts", {
      "package.json": JSON.stringify({ name: "ts-sample", private: true, type: "module" }),
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          target: "ES2022",
          strict: true,
          outDir: "out",
          types: ["node"],
        },
        include: ["index.ts"],
      }),
      "index.ts": `
import { verifyWebhook, type WebhookEvent, type OperationWebhook, type TestWebhook } from "@svc/webhooks";
import { amountDelta } from "@svc/webhooks/rules";
import { createDeduper } from "@svc/webhooks/dedupe";
import { generateTestHeaders } from "@svc/webhooks/sign";
import { webhookMiddleware } from "@svc/webhooks/node";
// @ts-expect-error: the types are real, so an unknown result does not compile.
const bad: OperationWebhook["result"] = "maybe";
const secret = "${SECRET}";
const payload = ${JSON.stringify(operationPayload())} as const;
const { body, headers }: TestWebhook<typeof payload> = await generateTestHeaders(payload, secret);
const event: WebhookEvent = await verifyWebhook(body, headers, secret);
if (event.type !== "operation" || event.payload.result !== "success") throw new Error("wrong event");
const state: "paid" | "refunded" | "voided" = event.payload.txn.state;
const middleware: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => Promise<void> =
  webhookMiddleware({ secrets: secret, onEvent: (e) => void e.id });
const { duplicate } = await createDeduper().once(event.id, () => {});
console.log(JSON.stringify({ state, delta: String(amountDelta(event.payload).minor), bad, m: typeof middleware, duplicate }));
`,
      // A browser project: no Node types; every type, the adapters' included, from the root.
      "tsconfig.browser.json": JSON.stringify({
        compilerOptions: {
          module: "ESNext",
          moduleResolution: "Bundler",
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          strict: true,
          noEmit: true,
          types: [],
        },
        include: ["browser.ts"],
      }),
      "browser.ts": `
import { verifyWebhook, type FastifyWebhookOptions, type NodeWebhookRequest, type WebhookHandlerOptions } from "@svc/webhooks";
export const options: WebhookHandlerOptions<Request> = { secrets: "whsec_x", onEvent: (event) => void event.id };
export type Both = [FastifyWebhookOptions["path"], NodeWebhookRequest["body"]];
export const verify = (body: string, headers: Headers) => verifyWebhook(body, headers, "whsec_x");
`,
    });
    run(process.execPath, [tsc, "-p", "tsconfig.browser.json"], dir);
    // The project's own node_modules has only the tarball; Node's types come from the repo.
    await mkdir(path.join(dir, "node_modules/@types"), { recursive: true });
    await symlink(
      path.join(repoRoot, "node_modules/@types/node"),
      path.join(dir, "node_modules/@types/node"),
    );
    run(process.execPath, [tsc, "-p", "."], dir);
    const out = JSON.parse(run(process.execPath, ["out/index.js"], dir));
    expect(out).toEqual({
      state: "refunded",
      delta: "-10500",
      bad: "maybe",
      m: "function",
      duplicate: false,
    });
  });
});
