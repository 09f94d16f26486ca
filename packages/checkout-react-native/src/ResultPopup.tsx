/**
 * The seed's national-debit rule in an app: after a failed payment, `cancelCallback` shows the
 * gateway's result. `<SvcResultPopup data={…} onClose={…} />` is a modal receipt of what the rule
 * shows (the gateway's response for a national debit gateway, `ndebit` or `knet`, else the whole
 * data) as translated rows, or "Payment was cancelled." without a gateway response.
 */
import { type CallbackData, type CheckoutTheme, POPUP_TEXTS, popupRows, textsFor } from "@svc/checkout-core";
import type { ReactElement } from "react";
import { Modal, Pressable, Text, View } from "react-native";
import { deviceAppearance, deviceLanguage } from "./device.js";
import { type Appearance, resolveTheme } from "./theme.js";

export interface ResultPopupProps {
  /** The callback data (`cancelCallback`'s); nothing is shown while undefined. */
  data: CallbackData | undefined;
  onClose(): void;
  /** Default: the JavaScript runtime's locale. */
  locale?: string;
  appearance?: Appearance;
  theme?: CheckoutTheme;
}

/**
 * @example
 * const [canceled, setCanceled] = useState<CancelCallbackData>();
 * const delegate = { …, cancelCallback: setCanceled };
 * <SvcResultPopup data={canceled} onClose={() => setCanceled(undefined)} />
 */
export function SvcResultPopup(props: ResultPopupProps): ReactElement | null {
  if (!props.data) return null;
  const language = deviceLanguage(props.locale);
  const appearance = deviceAppearance(props.appearance);
  const theme = resolveTheme(props.theme, appearance);
  const words = POPUP_TEXTS[language];
  const rows = popupRows(props.data, language);
  const look = theme.button(true);
  return (
    <Modal
      transparent
      animationType="fade"
      visible
      onRequestClose={props.onClose}
      // The modal is the dialog (react-native-web renders it role=dialog): named by its title.
      {...({ "aria-label": words.popupTitle } as object)}
    >
      <View style={styles.backdrop}>
        <View
          testID="svc-popup"
          style={[
            styles.box,
            { backgroundColor: theme.root.backgroundColor, direction: language === "ar" ? "rtl" : "ltr" },
          ]}
        >
          <Text nativeID="svc-popup-title" role="heading" style={[styles.title, theme.mainTitle]}>
            {words.popupTitle}
          </Text>
          {rows.length === 0 ? (
            <Text style={[styles.row, theme.dataValue]}>{textsFor(language).popupDefault}</Text>
          ) : (
            rows.map((row, i) => (
              <View key={`${row.label}-${i}`} style={[styles.row, { borderColor: theme.line }]}>
                <Text style={[styles.label, theme.dataLabel]}>{row.label}</Text>
                <Text style={[styles.value, theme.dataValue]}>{`\u2066${row.value}\u2069`}</Text>
              </View>
            ))
          )}
          <Pressable accessibilityRole="button" onPress={props.onClose} style={[styles.button, look.box]}>
            <Text style={[styles.buttonText, look.text]}>{words.close}</Text>
          </Pressable>
        </View>
      </View>
    </Modal>
  );
}

const styles = {
  backdrop: { flex: 1, backgroundColor: "rgba(0,0,0,0.5)", justifyContent: "center", padding: 12 },
  box: { borderRadius: 12, padding: 20, maxWidth: 480, width: "100%", alignSelf: "center" },
  title: { fontSize: 18, fontWeight: "700", marginBottom: 12 },
  row: {
    flexDirection: "row",
    justifyContent: "space-between",
    paddingVertical: 8,
    borderBottomWidth: 1,
    gap: 16,
  },
  label: { fontSize: 15, flexShrink: 0 },
  value: { fontSize: 15, fontWeight: "600", flexShrink: 1 },
  button: { borderRadius: 8, paddingVertical: 12, alignItems: "center", marginTop: 16, minHeight: 44 },
  buttonText: { fontSize: 16, fontWeight: "600" },
} as const;
