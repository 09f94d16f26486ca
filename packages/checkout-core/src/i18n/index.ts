import { ar } from "./ar.js";
import { en, type Texts } from "./en.js";
import type { Language } from "./language.js";

export type { Texts };
export { ar, en };
export { browserLanguage, type Language, languageOf } from "./language.js";

export const textsFor = (language: Language): Texts => (language === "ar" ? ar : en);

/** Fills `{name}` placeholders. */
export const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? "");
