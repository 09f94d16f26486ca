/** The device's language and appearance, as the view reads them at init (an app may override both). */
import { type Appearance, type Language, languageOf } from "@svc/checkout-core";
import { Appearance as RNAppearance } from "react-native";

/** `locale` when the app gives one, else the JavaScript runtime's: `ar*` is Arabic, anything else English. */
export function deviceLanguage(locale?: string): Language {
  if (locale) return languageOf(locale);
  try {
    return languageOf(Intl.DateTimeFormat().resolvedOptions().locale);
  } catch {
    return "en";
  }
}

/** `appearance` when the app gives one, else the device's. */
export function deviceAppearance(appearance?: Appearance): Appearance {
  return appearance ?? (RNAppearance.getColorScheme() === "dark" ? "dark" : "light");
}
