/** The checkout's language, without the texts (the browser's popup chunk needs only this). */
export type Language = "en" | "ar";

/** A locale's checkout language: `ar*` → Arabic, anything else → English. */
export function languageOf(locale: string | undefined): Language {
  return /^ar\b/i.test(locale ?? "") ? "ar" : "en";
}

/** The browser's language at init (`navigator.language`; English where there is none). */
export function browserLanguage(): Language {
  return languageOf(typeof navigator === "undefined" ? "" : navigator.language || "");
}
