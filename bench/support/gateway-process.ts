/**
 * The sandbox gateway in its own process for the operations bench, as a real gateway would be:
 * the service's process then spends its CPU on the service alone. IPC: sends {url}; "stop" exits.
 */
import { startSandboxGateway } from "../../packages/service/src/gateways/sandbox/server.js";

const gateway = await startSandboxGateway({
  port: 0,
  notificationSecret: process.env.BENCH_GATEWAY_SECRET ?? "",
  queuedDelayMs: 100,
});
process.send?.({ url: gateway.url });
process.on("message", async (message) => {
  if (message === "stop") {
    await gateway.close();
    process.exit(0);
  }
});
