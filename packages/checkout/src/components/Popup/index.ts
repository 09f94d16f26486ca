export {
  NATIONAL_DEBIT_PG_NAME,
  type PopupOptions,
  type PopupRow,
  popupText,
  showPopup,
  showResultPopup,
} from "./Popup.js";
