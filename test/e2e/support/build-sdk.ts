/**
 * vitest globalSetup: builds the SDK's script files once before the tests, so the service
 * serves the SDK of the sources under test (it only builds by itself when the files are missing).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";

export default async function buildSdkForTests(): Promise<void> {
  const script = path.resolve(import.meta.dirname, "../../../packages/checkout/build.mjs");
  const { buildSdk } = (await import(pathToFileURL(script).href)) as {
    buildSdk(options: { esm: boolean }): Promise<string>;
  };
  await buildSdk({ esm: false });
}
