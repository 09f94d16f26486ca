/**
 * `svc <command>`: the svc command line, on commander. Every command has `--help`; commands that
 * talk to a service take `--api-url`/`--api-key` (or SVC_API_URL/SVC_API_KEY, else the `svc dev`
 * credentials in this directory) and `--json` for scripts. Exit codes: 0 done, 1 failed (the
 * service or the receiver said no), 2 wrong usage.
 */
import { Command, CommanderError, Option } from "commander";
import { createApi, reason } from "./lib/api.js";
import {
  type ConnectionOptions,
  devWebhookSecret,
  type PgCodeName,
  resolveConnection,
  UsageError,
} from "./lib/connection.js";
import { createOutput, type Output, processSink, type Sink } from "./lib/output.js";

export async function run(argv: string[], sink: Sink = processSink()): Promise<number> {
  const program = new Command("svc")
    .description(
      "svc: run the payment service locally and integrate with it (webhooks, triggers, receiver checks)",
    )
    .exitOverride()
    .configureOutput({
      writeOut: sink.stdout,
      writeErr: sink.stderr,
      // The parser's own errors read like every other: "svc: …" (docs/cli.md), not "error: …".
      outputError: (message, write) => write(message.replace(/^error: /, "svc: ")),
    })
    .showHelpAfterError("(add --help for usage)");
  let exitCode = 0;

  const withService = (command: Command) =>
    command
      .addOption(new Option("--api-url <url>", "the service's base URL").env("SVC_API_URL"))
      .addOption(new Option("--api-key <key>", "a private API key (sk_…)").env("SVC_API_KEY"))
      .option("--json", "print one JSON object per line instead of text", false);
  const connect = async (options: ConnectionOptions & { pgCodes?: string }) => {
    const connection = await resolveConnection(options, sink.env);
    if (options.pgCodes) connection.pgCodes = { ...connection.pgCodes, ...parsePgCodes(options.pgCodes) };
    return { connection, api: createApi(connection) };
  };

  program
    .command("dev")
    .description(
      "run the service and the sandbox gateway on embedded PGlite, seeded with a demo merchant (what `npm start` runs)",
    )
    .action(async () => {
      if (process.env.SVC_CLI_BUNDLE) return void (exitCode = await fromSources("dev"));
      const { devCommand } = await import("./commands/dev.js");
      await devCommand(sink.env);
      exitCode = -1; // keeps running
    });

  program
    .command("serve")
    .description(
      "run the service alone as configured by SVC_* variables (production; see docs/operations.md)",
    )
    .action(async () => {
      if (process.env.SVC_CLI_BUNDLE) return void (exitCode = await fromSources("serve"));
      const { serveCommand } = await import("./commands/serve.js");
      await serveCommand(sink.env, (line) => sink.stdout(`${line}\n`));
      exitCode = -1;
    });

  program
    .command("gateway")
    .description(
      "act on the sandbox gateway's own dashboard: payments | refund|capture|void <session_id|pg_reference> <amount>",
    )
    .argument("<args...>")
    .option(
      "--gateway-url <url>",
      "the sandbox gateway (default SVC_GATEWAY_URL, else http://127.0.0.1:$SVC_GATEWAY_PORT)",
    )
    .action(async (args: string[], options: { gatewayUrl?: string }) => {
      const { gatewayCommand } = await import("./commands/gateway.js");
      const env = options.gatewayUrl ? { ...sink.env, SVC_GATEWAY_URL: options.gatewayUrl } : sink.env;
      exitCode = await gatewayCommand(args, env, (line) => sink.stdout(`${line}\n`));
    });

  withService(
    program
      .command("listen")
      .description(
        "receive this merchant's webhooks through a temporary cli endpoint and forward them to a local URL",
      )
      .requiredOption("--forward-to <url>", "where to POST each webhook, e.g. http://localhost:3000/webhooks")
      .option("--events <types>", "comma-separated event types (default: all)")
      .option("--forward-timeout <seconds>", "how long the local server may take to answer", "15"),
  ).action(
    async (
      options: ConnectionOptions & {
        forwardTo: string;
        events?: string;
        forwardTimeout: string;
        json: boolean;
      },
    ) => {
      const out = createOutput(options.json, sink);
      // Checked before anything is created: a bad value would fail every forward, each one a
      // failed attempt in the merchant's delivery log.
      const timeoutSeconds = Number(options.forwardTimeout);
      if (!(timeoutSeconds > 0 && timeoutSeconds <= 300))
        throw new UsageError(
          `--forward-timeout takes seconds, more than 0 and at most 300 (got "${options.forwardTimeout}")`,
        );
      if (!URL.canParse(options.forwardTo) || !/^https?:$/.test(new URL(options.forwardTo).protocol))
        throw new UsageError(
          `--forward-to must be an http:// or https:// URL such as http://localhost:3000/webhooks (got "${options.forwardTo}")`,
        );
      const { api } = await connect(options);
      const { listen } = await import("./commands/listen.js");
      const handle = await listen(
        api,
        {
          forwardTo: options.forwardTo,
          events: options.events
            ?.split(",")
            .map((e) => e.trim())
            .filter(Boolean),
          timeoutMs: timeoutSeconds * 1000,
        },
        out,
      );
      // A closed terminal (SIGHUP) ends the session as Ctrl-C does: the endpoint is deleted.
      const stop = () => void handle.stop();
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, stop);
      await handle.done;
    },
  );

  withService(
    program
      .command("trigger")
      .description("create real sandbox objects that make the service send an event (`--list` lists them)")
      .argument("[event]", "the trigger's name, e.g. payment.paid or operation.refund.queued")
      .option("--list", "list the triggers and the events each produces")
      .addOption(
        new Option("--gateway-url <url>", "the sandbox gateway (gateway-relayed operations)").env(
          "SVC_GATEWAY_URL",
        ),
      )
      .option(
        "--pg-codes <pairs>",
        "the merchant's sandbox gateway codes, e.g. sandbox=pg_1,sandbox_authorize=pg_2,sandbox_queued=pg_3",
      ),
  ).action(
    async (
      event: string | undefined,
      options: ConnectionOptions & { list?: boolean; pgCodes?: string; json: boolean },
    ) => {
      const out = createOutput(options.json, sink);
      const { TRIGGERS, trigger } = await import("./commands/trigger.js");
      if (options.list || !event) {
        out.result(
          TRIGGERS.map(
            (t) => `${t.name.padEnd(26)} ${t.description}\n${"".padEnd(26)} → ${t.produces.join(", ")}`,
          ).join("\n"),
          TRIGGERS.map(({ name, description, produces }) => ({ name, description, produces })),
        );
        if (!event && !options.list) exitCode = 2;
        return;
      }
      const { api, connection } = await connect(options);
      const done = await trigger(api, connection, event);
      const { trigger: t, ...ids } = done;
      // A test message with nowhere to go is not sent: say so, as `svc webhooks test` does.
      if (t.name === "webhook.test" && !ids.message_id) {
        out.result("Nothing was sent: no endpoint or webhook URL is configured.", {
          trigger: t.name,
          produces: [],
        });
        exitCode = 1;
        return;
      }
      out.result(
        `Triggered ${t.name}${ids.session_id ? ` on ${ids.session_id}` : ""}${ids.reference_number ? ` (operation ${ids.reference_number})` : ""}${ids.message_id ? ` (message ${ids.message_id})` : ""}: expect ${t.produces.join(", ")}`,
        { trigger: t.name, produces: t.produces, ...ids },
      );
    },
  );

  const secrets = program
    .command("secrets")
    .description("the key gateway credentials are sealed with at rest (SVC_SECRETS_KEY)");
  secrets
    .command("generate-key")
    .description("print a new key for SVC_SECRETS_KEY (32 random bytes, base64)")
    .action(async () => {
      const { generateKey } = await import("./commands/secrets.js");
      sink.stdout(`${generateKey()}\n`);
    });
  secrets
    .command("rotate")
    .description(
      "seal every stored gateway credential again under the service's current SVC_SECRETS_KEY (after moving the old key to SVC_SECRETS_PREVIOUS_KEYS)",
    )
    .addOption(new Option("--api-url <url>", "the service's base URL").env("SVC_API_URL"))
    .addOption(new Option("--admin-token <token>", "the operator API's token").env("SVC_ADMIN_TOKEN"))
    .option("--json", "print the result as JSON", false)
    .action(async (options: { apiUrl?: string; adminToken?: string; json: boolean }) => {
      const out = createOutput(options.json, sink);
      const { describeRotation, rotate } = await import("./commands/secrets.js");
      const result = await rotate(options, sink.env);
      out.result(describeRotation(result), result);
      if (result.cannot_open.length > 0) exitCode = 1;
    });

  const webhooks = program.command("webhooks").description("webhook tools");
  withService(
    webhooks
      .command("test")
      .description(
        "send a signed webhook.test through the real delivery path (to every endpoint, or one with --endpoint)",
      )
      .option("--endpoint <id>", "only this endpoint"),
  ).action(async (options: ConnectionOptions & { endpoint?: string; json: boolean }) => {
    const out = createOutput(options.json, sink);
    const { api } = await connect(options);
    const path = options.endpoint
      ? `/v1/webhooks/endpoints/${encodeURIComponent(options.endpoint)}/test`
      : "/v1/webhooks/test";
    const sent = await api.request<{ message_id: string | null; urls: string[] }>("POST", path);
    out.result(
      sent.message_id
        ? `Sent ${sent.message_id} to ${sent.urls.join(", ")}; its attempts are in the delivery log.`
        : "Nothing was sent: no endpoint or webhook URL is configured.",
      sent,
    );
    if (!sent.message_id) exitCode = 1;
  });

  webhooks
    .command("check")
    .description(
      "receiver conformance kit: send your receiver the messages production sends, grade each answer, say how to fix",
    )
    .argument("<url>", "your receiver, e.g. http://localhost:3000/webhooks")
    .addOption(
      new Option(
        "--secret <whsec>",
        "the signing secret your receiver verifies with (default: svc dev's)",
      ).env("SVC_WEBHOOK_SECRET"),
    )
    .option("--json", "print the results as one JSON object", false)
    .action(async (url: string, options: { secret?: string; json: boolean }) => {
      const out = createOutput(options.json, sink);
      if (!/^https?:\/\//.test(url))
        throw new UsageError(`the receiver's URL must start with http:// or https:// (got "${url}")`);
      const secret = options.secret ?? (await devWebhookSecret(sink.env));
      if (!secret)
        throw new UsageError(
          "no secret: pass --secret whsec_… (or set SVC_WEBHOOK_SECRET), or run beside `svc dev`, whose secret is used by default",
        );
      const { checkReceiver, reportCard } = await import("./commands/check.js");
      const results = await checkReceiver({ url, secret });
      const passed = results.every((r) => r.passed);
      out.result(reportCard(url, results, out), { url, passed, checks: results });
      if (!passed) exitCode = 1;
    });

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const out: Output = createOutput(false, sink);
    if (error instanceof UsageError) {
      out.error(error.message);
      return 2;
    }
    out.error(reason(error));
    return 1;
  }
}

/**
 * The built `svc` (plain JavaScript) runs `dev` and `serve` from the TypeScript sources beside it
 * through tsx, in a child process that inherits the terminal; without the sources it says where
 * they are.
 */
async function fromSources(command: "dev" | "serve"): Promise<number> {
  const { spawn } = await import("node:child_process");
  const { existsSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  if (!existsSync(main))
    throw new UsageError(
      `svc ${command} runs the service from its repository: clone it and run \`npm start\` there. This build has the integration commands (listen, trigger, webhooks).`,
    );
  const child = spawn(process.execPath, ["--import", "tsx", main, command], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}

function parsePgCodes(pairs: string): Partial<Record<PgCodeName, string>> {
  const codes: Partial<Record<PgCodeName, string>> = {};
  for (const pair of pairs.split(",")) {
    const [name, code] = pair.split("=").map((s) => s.trim());
    if (!name || !code || !["sandbox", "sandbox_authorize", "sandbox_queued", "ndebit"].includes(name))
      throw new UsageError(
        `--pg-codes takes name=code pairs with names sandbox, sandbox_authorize, sandbox_queued, ndebit (got "${pair}")`,
      );
    codes[name as PgCodeName] = code;
  }
  return codes;
}

// Run as the `svc` binary: the built dist/svc.mjs, or src/main.ts through tsx (not when a test imports it).
if (process.env.SVC_CLI_BUNDLE || (process.argv[1] && /main\.ts$/.test(process.argv[1]))) {
  const code = await run(process.argv.slice(2));
  if (code >= 0) process.exitCode = code;
}
