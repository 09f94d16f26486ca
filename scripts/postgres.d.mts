/** Types of scripts/postgres.mjs for the TypeScript bench modules. */
export function findPgBin(): string | undefined;
/** The durability settings a bench reports beside its figures. */
export const DURABILITY_SETTINGS: readonly string[];
/** `durable`: keep fsync, synchronous_commit and full_page_writes on (the benches); off for tests. */
export function startPostgres(
  bin: string,
  options?: { durable?: boolean },
): Promise<{
  url: string;
  stop(): void;
  /** Fault tests: the server dies at once (pg_ctl stop -m immediate). */
  crash(): void;
  /** Fault tests: the server starts again on the same port and data. */
  start(): void;
  /** Fault tests: every server process is stopped (SIGSTOP); sockets stay open. */
  freeze(): void;
  /** The server's processes now, the postmaster first (pids as pgrep prints them). */
  pids(): string[];
  /** Every server process continues (SIGCONT); one that exited meanwhile is skipped. */
  thaw(): void;
}>;
