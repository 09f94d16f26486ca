/** The example shop exists only under `svc dev` (exampleShop), never under `svc serve`. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { loadConfig } from "../config.js";

describe("the example shop", () => {
  let serve: Stack;
  beforeAll(async () => {
    serve = await startStack("pglite");
  });
  afterAll(() => serve?.close());

  it("is not served by `svc serve`: no route, no credentials read, no transaction created", async () => {
    expect(loadConfig({}).exampleShop).toBe(false);
    // Not even a variable turns it on: only `svc dev` does.
    expect(loadConfig({ SVC_EXAMPLE_SHOP: "true" }).exampleShop).toBe(false);
    const r = await fetch(`${serve.url}/example/`);
    expect(r.status).toBe(404);
    expect((await serve.db.query("select 1 from transactions")).length).toBe(0);
  });
});
