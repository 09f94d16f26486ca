/**
 * Puts stylesheets into a shadow root without a `style` attribute: constructable stylesheets
 * where the browser has them (no CSP involvement), else a `<style nonce>` element.
 */
export function adoptStyles(root: ShadowRoot, css: string[], nonce: string | undefined): void {
  if (
    "adoptedStyleSheets" in root &&
    typeof CSSStyleSheet === "function" &&
    "replaceSync" in CSSStyleSheet.prototype
  ) {
    root.adoptedStyleSheets = css.map((text) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(text);
      return sheet;
    });
    return;
  }
  for (const text of css) {
    const style = document.createElement("style");
    if (nonce) style.nonce = nonce;
    style.textContent = text;
    root.append(style);
  }
}
