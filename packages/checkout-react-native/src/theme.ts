/** The seed's theme model (@svc/checkout-core) turned into React Native styles for one appearance. */
import {
  type Appearance,
  type ButtonComponent,
  type CheckoutTheme,
  colorFor as colorOf,
  type LabelComponent,
} from "@svc/checkout-core";
import type { TextStyle, ViewStyle } from "react-native";

export type { Appearance };

/** The default design, light and dark (the browser SDK's colours). */
const BASE = {
  light: {
    background: "#ffffff",
    text: "#16161a",
    muted: "#52525b",
    line: "#d4d4d8",
    accent: "#0b5cd5",
    accentText: "#ffffff",
    disabled: "#e4e4e7",
    disabledText: "#52525b",
    error: "#b3261e",
    field: "#ffffff",
  },
  dark: {
    background: "#16161a",
    text: "#f4f4f5",
    muted: "#b4b4bb",
    line: "#52525b",
    accent: "#8ab4ff",
    accentText: "#0b1220",
    disabled: "#3f3f46",
    disabledText: "#d4d4d8",
    error: "#ff8a80",
    field: "#1f1f24",
  },
} as const;

const label = (l: LabelComponent | undefined, appearance: Appearance, fallback: string): TextStyle => ({
  color: colorOf(l?.color, appearance) ?? fallback,
  ...(l?.fontFamily ? { fontFamily: l.fontFamily } : {}),
});

const button = (b: ButtonComponent | undefined, appearance: Appearance, enabled: boolean) => {
  const base = BASE[appearance];
  return {
    box: {
      backgroundColor: enabled
        ? (colorOf(b?.enabledBackgroundColor, appearance) ?? base.accent)
        : (colorOf(b?.disabledBackgroundColor, appearance) ?? base.disabled),
    } satisfies ViewStyle,
    text: {
      color: enabled
        ? (colorOf(b?.enabledTitleColor, appearance) ?? base.accentText)
        : (colorOf(b?.disabledTitleColor, appearance) ?? base.disabledText),
      ...(b?.fontFamily ? { fontFamily: b.fontFamily } : {}),
    } satisfies TextStyle,
  };
};

/** Everything the view paints, for one appearance. */
export function resolveTheme(theme: CheckoutTheme | undefined, appearance: Appearance) {
  const base = BASE[appearance];
  const m = theme?.margins ?? {};
  return {
    appearance,
    base,
    root: {
      backgroundColor: colorOf(theme?.backgroundColor, appearance) ?? base.background,
      paddingTop: m.top ?? 16,
      paddingBottom: m.bottom ?? 16,
      paddingLeft: m.left ?? 16,
      paddingRight: m.right ?? 16,
    } satisfies ViewStyle,
    mainTitle: label(theme?.mainTitle, appearance, base.text),
    title: label(theme?.title, appearance, base.text),
    subtitle: label(theme?.subtitle, appearance, base.muted),
    dataLabel: label(theme?.dataLabel, appearance, base.muted),
    dataValue: label(theme?.dataValue, appearance, base.text),
    fee: label(theme?.feesSubtitle, appearance, base.muted),
    error: label(theme?.errorMessage, appearance, base.error),
    button: (enabled: boolean) => button(theme?.button, appearance, enabled),
    selector: (enabled: boolean) => button(theme?.selectorButton, appearance, enabled),
    icon: colorOf(theme?.iconColor, appearance) ?? base.accent,
    field: {
      label: label(theme?.inputTextField?.label, appearance, base.text),
      text: label(theme?.inputTextField?.text, appearance, base.text),
      background: colorOf(theme?.inputTextField?.backgroundColor, appearance) ?? base.field,
    },
    line: base.line,
    showPaymentDetails: theme?.showPaymentDetails !== false,
  };
}

export type ResolvedTheme = ReturnType<typeof resolveTheme>;
