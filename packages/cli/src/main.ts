#!/usr/bin/env -S npx tsx
/** `svc <command>`: the svc command line. */
import { devCommand } from "./commands/dev.js";
import { GATEWAY_USAGE, gatewayCommand } from "./commands/gateway.js";
import { serveCommand } from "./commands/serve.js";

const USAGE = `usage: svc <command>

commands:
  dev        run the service and the sandbox gateway on embedded PGlite, seeded with a demo merchant
  serve      run the service alone as configured by SVC_* variables (production: SVC_DATABASE_URL,
             SVC_ROLE=api|worker|all, SVC_GATEWAY_URL, SVC_ADMIN_TOKEN; see docs/operations.md)
  gateway    act on the sandbox gateway's own dashboard (payments, refund, capture, void)

${GATEWAY_USAGE}`;

const [command, ...rest] = process.argv.slice(2);
try {
  switch (command) {
    case "dev":
      await devCommand(process.env);
      break;
    case "serve":
      await serveCommand(process.env, (line) => process.stdout.write(`${line}\n`));
      break;
    case "gateway":
      process.exitCode = await gatewayCommand(rest, process.env, (line) => process.stdout.write(`${line}\n`));
      break;
    case undefined:
    case "help":
    case "--help":
      process.stdout.write(USAGE);
      break;
    default:
      process.stderr.write(`svc: unknown command "${command}"\n${USAGE}`);
      process.exitCode = 2;
  }
} catch (error) {
  process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
