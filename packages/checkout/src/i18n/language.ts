/** The browser's language, without the texts (the popup chunk needs only this). */
export type Language = "en" | "ar";

/** The browser's language at init: `ar*` → Arabic, anything else → English. */
export function browserLanguage(): Language {
  const lang = typeof navigator === "undefined" ? "" : navigator.language || "";
  return /^ar\b/i.test(lang) ? "ar" : "en";
}
