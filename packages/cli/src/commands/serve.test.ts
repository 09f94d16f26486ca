import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serveCommand } from "./serve.js";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-serve-notes-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("svc serve's start checks", () => {
  it.each(["api", "worker"])(
    "refuses SVC_ROLE=%s without PostgreSQL before opening anything: nothing would deliver webhooks (or serve the API)",
    async (role) => {
      const printed: string[] = [];
      await expect(
        serveCommand({ SVC_ROLE: role, SVC_DATA_DIR: dataDir }, (line) => printed.push(line)),
      ).rejects.toThrow(`SVC_ROLE=${role} needs PostgreSQL (SVC_DATABASE_URL)`);
      expect(printed).toEqual([]);
    },
  );
});
