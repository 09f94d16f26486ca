/**
 * Durations on the wire: ISO 8601 (`PT30M`, `P1D`, `PT1H30M`) or a whole number of seconds.
 * Returns seconds, or undefined when the value is neither.
 */
export function parseDurationSeconds(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  if (/^[1-9][0-9]{0,9}$/.test(value)) return Number(value);
  const m = /^P(?:(\d{1,4})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,8})M)?(?:(\d{1,10})S)?)?$/.exec(value);
  if (!m || value === "P" || value.endsWith("T")) return undefined;
  const [, d = "0", h = "0", min = "0", s = "0"] = m;
  const total = Number(d) * 86400 + Number(h) * 3600 + Number(min) * 60 + Number(s);
  return total > 0 ? total : undefined;
}
