import { ar } from "./ar.js";
import { en, type Texts } from "./en.js";

export type { Texts };
export type Language = "en" | "ar";

/** The browser's language at init: `ar*` → Arabic, anything else → English. */
export function browserLanguage(): Language {
  const lang = typeof navigator === "undefined" ? "" : navigator.language || "";
  return /^ar\b/i.test(lang) ? "ar" : "en";
}

export const textsFor = (language: Language): Texts => (language === "ar" ? ar : en);

/** Fills `{name}` placeholders. */
export const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? "");
