#!/usr/bin/env -S npx tsx
/** `svc <command>`: the svc command line. */
import { devCommand } from "./commands/dev.js";

const USAGE = `usage: svc <command>

commands:
  dev     run the service and the sandbox gateway on embedded PGlite, seeded with a demo merchant
`;

const [command] = process.argv.slice(2);
switch (command) {
  case "dev":
    await devCommand(process.env);
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
