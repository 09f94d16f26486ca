/**
 * The built `svc` is plain JavaScript: copied alone into an empty directory (no node_modules, no
 * tsx), it runs its integration commands — here `svc webhooks check` against a receiver on
 * loopback — and says where `svc dev` runs.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { webhookMiddleware } from "@svc/webhooks/node";
import { generateSecret } from "@svc/webhooks/sign";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../build.mjs";

const exec = promisify(execFile);

describe("the built svc (dist/svc.mjs)", () => {
  let dir: string;
  let cli: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "svc-cli-bundle-"));
    const built = await buildCli(path.join(dir, "build", "svc.mjs"));
    cli = path.join(dir, "svc.mjs");
    await copyFile(built, cli);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const svc = (args: string[]) =>
    exec(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeout: 20_000,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it("is one file of JavaScript for node, with no tsx in it", async () => {
    const text = await readFile(cli, "utf8");
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(text).not.toMatch(/from "tsx"|require\("tsx"\)/);
    const listed = await svc(["trigger", "--list", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((t: { name: string }) => t.name)).toContain(
      "operation.refund.queued",
    );
  });

  it("checks a receiver from an empty directory", async () => {
    const secret = generateSecret();
    const server = http.createServer(webhookMiddleware({ secrets: secret, onEvent: () => {} }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const result = await svc(["webhooks", "check", url, "--secret", secret, "--json"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ passed: true });
    } finally {
      server.close();
    }
  });

  it("outside the repository, svc dev says where it runs (exit 2)", async () => {
    const result = await svc(["dev"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/runs the service from its repository/);
  });
});
