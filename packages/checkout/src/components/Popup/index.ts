export { NATIONAL_DEBIT_PG_NAME, type PopupOptions, popupText, showPopup } from "./Popup.js";
