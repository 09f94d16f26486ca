/**
 * `svc serve`: the service alone, configured by the environment, as it runs in production — on
 * PostgreSQL (`SVC_DATABASE_URL`) or PGlite, with `SVC_ROLE` api | worker | all, against the
 * gateway at `SVC_GATEWAY_URL`. No seeding and no sandbox gateway (`svc dev` adds those).
 * SIGTERM and SIGINT drain in-flight requests and stop. OpenTelemetry tracing starts first when
 * the OTEL_* variables ask for it, so the service's modules are imported after it
 * (docs/operations.md, Tracing).
 */
import { startTracing } from "@svc/service/telemetry";

/** The shortest operator or metrics token `svc serve` takes without a note (32 random characters). */
const MIN_TOKEN_CHARS = 32;

/** Printed once the service listens and its worker runs: process managers and tests wait for it. */
export const SERVE_READY = "svc serving on";

export async function serveCommand(
  env: Record<string, string | undefined>,
  print: (line: string) => void,
): Promise<void> {
  const tracing = await startTracing(env);
  const { loadConfig, startService } = await import("@svc/service");
  const config = loadConfig(env);
  if (!config.databaseUrl) {
    // One process holds a PGlite store: an API process and a worker process cannot share it.
    if (config.role !== "all")
      throw new Error(
        `SVC_ROLE=${config.role} needs PostgreSQL (SVC_DATABASE_URL): on PGlite one process holds the store, so it must serve the API and deliver webhooks both (SVC_ROLE=all)`,
      );
    print(
      `note: SVC_DATABASE_URL is not set, so the store is PGlite in ${config.dataDir}: one process, for trying svc out; run on PostgreSQL for real payments`,
    );
  }
  if (!env.SVC_PUBLIC_URL)
    print(
      `note: SVC_PUBLIC_URL is not set, so checkout links, 3-D Secure returns and KNET's response URL name ${config.publicUrl}; set it to the https:// URL customers and gateways reach`,
    );
  if (!config.adminToken) print("note: SVC_ADMIN_TOKEN is not set, so the operator API is disabled");
  // A reservation or a key's lease that can end while its gateway call still runs lets the sweep
  // or a retry take over a live request (KNET: a false unknown outcome on the Discrepancies page).
  for (const [name, seconds] of [
    ["SVC_RESERVATION_TIMEOUT_SECONDS", config.reservationTimeoutSeconds],
    ["SVC_IDEMPOTENCY_LEASE_SECONDS", config.idempotencyLeaseSeconds],
  ] as const)
    if (seconds * 1000 <= 2 * config.gatewayTimeoutMs)
      print(
        `note: ${name} (${seconds} s) is not more than twice SVC_GATEWAY_TIMEOUT_MS (${config.gatewayTimeoutMs} ms): a request still waiting on its gateway can be taken over (the sweep, a retry); make it longer`,
      );
  for (const [name, token] of [
    ["SVC_ADMIN_TOKEN", config.adminToken],
    ["SVC_METRICS_TOKEN", config.metricsToken],
  ] as const)
    if (token && token.length < MIN_TOKEN_CHARS)
      print(
        `note: ${name} is ${token.length} characters; use at least ${MIN_TOKEN_CHARS} random ones (\`openssl rand -base64 32\` makes one)`,
      );
  if (!config.secretsKey)
    print(
      "note: SVC_SECRETS_KEY is not set, so gateway credentials (KNET, Stripe) can be neither saved nor used; `svc secrets generate-key` makes one",
    );
  const service = await startService(config, { onDatabaseWait: databaseWaitLines(print) });
  print(
    `${SERVE_READY} ${service.url} (role ${config.role}, store ${config.databaseUrl ? "PostgreSQL" : `PGlite in ${config.dataDir}`})`,
  );
  // The handlers stay: a second signal while draining (a process group signalled as a whole gets
  // it from the `svc` wrapper too) must not end the process before its requests are answered.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    print(`${signal}: stopping…`);
    await service.close();
    await tracing?.shutdown(); // the spans still buffered are sent
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

/** Prints a line for each try at a PostgreSQL a starting service cannot reach yet (`svc serve`, `svc dev`). */
export function databaseWaitLines(print: (line: string) => void) {
  return (reason: unknown, retryInMs: number, giveUpInMs: number) =>
    print(
      `svc: the database cannot be reached yet (${why(reason)}); trying again in ${seconds(retryInMs)}, giving up in ${seconds(giveUpInMs)} (SVC_DB_START_WAIT_MS)`,
    );
}

/** An error's message, or its code when it has none (a refused connection to every address of a name). */
function why(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.message || String((error as { code?: unknown }).code ?? error.name);
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))} s`;
}
