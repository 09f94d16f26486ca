/** Builds dist/svc.mjs (or `outfile`) and returns its path. */
export function buildCli(outfile?: string): Promise<string>;
