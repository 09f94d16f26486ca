/** Types of scripts/postgres.mjs for the TypeScript bench modules. */
export function findPgBin(): string | undefined;
/** The durability settings a bench reports beside its figures. */
export const DURABILITY_SETTINGS: readonly string[];
/** `durable`: keep fsync, synchronous_commit and full_page_writes on (the benches); off for tests. */
export function startPostgres(
  bin: string,
  options?: { durable?: boolean },
): Promise<{ url: string; stop(): void }>;
