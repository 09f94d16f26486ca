/** `svc trigger webhook.test` says when nothing was sent (exit 1), as `svc webhooks test` does. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { run } from "../main.js";

describe("svc trigger webhook.test", () => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
  });
  afterAll(() => stack?.close());

  const trigger = async () => {
    const out: string[] = [];
    const code = await run(
      ["trigger", "webhook.test", "--api-key", m.privateKey, "--api-url", stack.url, "--json"],
      { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), isTTY: false, env: {} },
    );
    return { code, json: JSON.parse(out.join("")) as Record<string, unknown> };
  };

  it("exits 1 saying nothing was sent when there is nowhere to send it, 0 with the message id when there is", async () => {
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: null,
      notify_api_initiated: false,
    });
    const none = await trigger();
    expect(none.code).toBe(1);
    expect(none.json).toEqual({ trigger: "webhook.test", produces: [] });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: "http://127.0.0.1:9/hook",
      notify_api_initiated: false,
    });
    const sent = await trigger();
    expect(sent.code).toBe(0);
    expect(sent.json).toMatchObject({ trigger: "webhook.test", message_id: expect.stringMatching(/^msg_/) });
  });
});
