/** Shutdown helpers: every wait on shutdown is bounded, so stopping a process always completes. */

/** True when `work` settled (resolved or rejected) within `ms`; false when the time ran out first. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
