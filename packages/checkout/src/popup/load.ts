/**
 * Loads the popup chunk on demand. The ESM build code-splits `./popup-view.js`; the single-file
 * script build defines SVC_SCRIPT_BUILD and loads `svc-checkout-popup.js` beside itself.
 */
declare const SVC_SCRIPT_BUILD: boolean | undefined;

type PopupModule = typeof import("./popup-view.js");

let scriptPopupUrl: string | undefined;

/** Set by the script build from its own URL. */
export function setPopupUrl(url: string): void {
  scriptPopupUrl = url;
}

export function importPopup(): Promise<PopupModule> {
  if (typeof SVC_SCRIPT_BUILD !== "undefined" && SVC_SCRIPT_BUILD)
    return import(/* @vite-ignore */ scriptPopupUrl!) as Promise<PopupModule>;
  return import("./popup-view.js");
}
