// Pictures made in code: SVG elements built as dom.ts builds HTML ones, every piece of text
// a text node. A picture is role="img" with its words in aria-label (and a <title> for the
// pointer), so a screen reader says what the chip it replaced said.

const NS = "http://www.w3.org/2000/svg";

export type SvgChild = SVGElement | string | number | null | undefined | false | SvgChild[];
export type SvgAttrs = Record<string, string | number | undefined | false>;

/** An SVG element: attributes as given, children appended (text as text nodes). */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: SvgAttrs = {}, ...children: SvgChild[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(parent: SVGElement, children: SvgChild[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child === null || child === undefined || child === false) continue;
    else parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

export interface PictureOptions {
  /** What the picture shows, in words: its accessible name and its tooltip. */
  label: string;
  width: number;
  height: number;
  /** Its size on the page in CSS pixels, when not its drawing box's. */
  shown?: { width: number; height: number };
  class?: string;
  testid?: string;
}

/** A picture's root: role="img", named by its label; drawn in a width × height box of user units. */
export function picture(options: PictureOptions, ...children: SvgChild[]): SVGSVGElement {
  return s(
    "svg",
    {
      role: "img",
      "aria-label": options.label,
      viewBox: `0 0 ${options.width} ${options.height}`,
      width: options.shown?.width ?? options.width,
      height: options.shown?.height ?? options.height,
      class: options.class,
      "data-testid": options.testid,
      focusable: "false",
    },
    s("title", {}, options.label),
    children,
  );
}

/** A drawing inside a picture, moved and scaled: glyphs are drawn in a 40 × 40 box. */
export function placed(x: number, y: number, scale: number, ...children: SvgChild[]): SVGGElement {
  return s("g", { transform: `translate(${x} ${y}) scale(${scale})` }, children);
}
