/**
 * The dashboard while its database fails, over real HTTP on both stores: a page answers 503 with
 * what to do and when (the database unreachable, or a transaction undone by a deadlock), and its
 * stylesheet still loads for a signed-in user, so that page is styled (assets read no session).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn } from "../../../../test/support/dashboard.js";
import { createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("the dashboard while its database fails, on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it.each([
    {
      what: "unreachable",
      error: new Error("Connection terminated unexpectedly"),
      retryAfter: "2",
      title: "Unavailable for a moment",
      says: "The service cannot reach its database just now",
    },
    {
      what: "a transaction undone by a deadlock",
      error: Object.assign(new Error("deadlock detected"), { code: "40P01" }),
      retryAfter: "1",
      title: "Try that again",
      says: "Another change to the same records happened at the same moment",
    },
  ])(
    "$what: a page answers 503 saying so, and its stylesheet still loads",
    async ({ error, retryAfter, title, says }) => {
      const client = await signedIn(stack, m.admin);
      const query = stack.db.query;
      stack.db.query = async () => {
        throw error;
      };
      let page, css;
      try {
        page = await client.get("/dashboard/overview");
        css = await client.get("/dashboard/assets/dashboard.css");
      } finally {
        stack.db.query = query;
      }
      expect(page.status).toBe(503);
      expect(page.headers.get("retry-after")).toBe(retryAfter);
      expect(page.text).toContain(`<h1>${title}</h1>`);
      expect(page.text).toContain(says);
      expect(page.text).toContain('<link rel="stylesheet" href="/dashboard/assets/dashboard.css"');
      expect(page.text).not.toContain(error.message);
      expect(css.status).toBe(200);
      expect(css.headers.get("content-type")).toContain("text/css");
      // Back to normal once the database answers.
      expect((await client.get("/dashboard/overview")).status).toBe(200);
    },
  );
});
