/** Types of scripts/postgres.mjs for the TypeScript bench modules. */
export function findPgBin(): string | undefined;
export function startPostgres(bin: string): Promise<{ url: string; stop(): void }>;
