/**
 * Inline SVG icons (no requests, no fonts): one per form of payment, brand marks for saved
 * cards, and the outcome marks. Built with the DOM (no innerHTML) and hidden from screen readers:
 * the option's name says what the icon shows.
 */
const NS = "http://www.w3.org/2000/svg";

type Shape = [tag: string, attrs: Record<string, string>];

const line = (d: string): Shape => ["path", { d }];
const ICONS: Record<string, Shape[]> = {
  card: [["rect", { x: "2.5", y: "5", width: "19", height: "14", rx: "2.5" }], line("M2.5 9.5h19M6 15h4")],
  saved_card: [
    ["rect", { x: "2.5", y: "5", width: "19", height: "14", rx: "2.5" }],
    line("M2.5 9.5h19M14.5 15l1.8 1.8 3.2-3.6"),
  ],
  wallet_a: [
    ["rect", { x: "3", y: "6", width: "18", height: "13", rx: "2.5" }],
    line("M3 10h18M16.5 14.5h1.5M6 6l9-3 1.5 3"),
  ],
  wallet_b: [["rect", { x: "6.5", y: "2.5", width: "11", height: "19", rx: "2.5" }], line("M10.5 18.5h3")],
  bank: [line("M3 9.5 12 4l9 5.5M4.5 10v8M9.5 10v8M14.5 10v8M19.5 10v8M3 20.5h18")],
  success: [["circle", { cx: "12", cy: "12", r: "9.5" }], line("M7.5 12.5l3 3 6-6.5")],
  failure: [["circle", { cx: "12", cy: "12", r: "9.5" }], line("M12 7v6.5M12 16.5v.5")],
  closed: [
    ["rect", { x: "3", y: "4.5", width: "18", height: "15", rx: "2" }],
    line("M3 8.5h18M9.5 12l5 5M14.5 12l-5 5"),
  ],
};

function svg(viewBox: string, className: string, shapes: Shape[]): SVGSVGElement {
  const el = document.createElementNS(NS, "svg");
  el.setAttribute("viewBox", viewBox);
  el.setAttribute("class", className);
  el.setAttribute("aria-hidden", "true");
  el.setAttribute("focusable", "false");
  for (const [tag, attrs] of shapes) {
    const child = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) child.setAttribute(k, v);
    el.append(child);
  }
  return el;
}

/** A line icon in the current colour: `card`, `saved_card`, `wallet_a`, `wallet_b`, `bank`, `success`, `failure`, `closed`. */
export const icon = (name: string, className = "ic") =>
  svg("0 0 24 24", className, ICONS[name] ?? ICONS.card!);

const BRANDS: Record<string, { bg: string; fg: string; text?: string; circles?: boolean }> = {
  visa: { bg: "#1a1f71", fg: "#fff", text: "VISA" },
  mastercard: { bg: "#252525", fg: "#fff", circles: true },
  amex: { bg: "#1f72cd", fg: "#fff", text: "AMEX" },
  mada: { bg: "#fff", fg: "#004b87", text: "mada" },
};

/** A card network's mark (a small coloured badge), or the plain card icon for another brand. */
export function brandMark(brand: string): SVGSVGElement {
  const b = BRANDS[brand.toLowerCase()];
  if (!b) return icon("saved_card");
  const shapes: Shape[] = [["rect", { width: "38", height: "24", rx: "4", fill: b.bg, stroke: "#8a8a96" }]];
  if (b.circles) {
    shapes.push(["circle", { cx: "15", cy: "12", r: "7", fill: "#eb001b" }]);
    shapes.push(["circle", { cx: "23", cy: "12", r: "7", fill: "#f79e1b", "fill-opacity": ".85" }]);
  }
  const el = svg("0 0 38 24", "ic br", shapes);
  if (b.text) {
    const text = document.createElementNS(NS, "text");
    for (const [k, v] of Object.entries({
      x: "19",
      y: "16",
      "text-anchor": "middle",
      fill: b.fg,
      "font-size": "10",
      "font-weight": "700",
      "font-family": "system-ui,sans-serif",
    }))
      text.setAttribute(k, v);
    text.textContent = b.text;
    el.append(text);
  }
  return el;
}
