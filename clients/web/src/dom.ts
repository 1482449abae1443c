// Every element is built here, and every piece of text enters the page as a text node:
// display names and game words come from other people, so nothing is ever parsed as HTML.

type Child = Node | string | number | null | undefined | false | Child[];

export interface Attrs {
  class?: string;
  id?: string;
  title?: string;
  lang?: string;
  role?: string;
  type?: string;
  value?: string;
  name?: string;
  for?: string;
  href?: string;
  datetime?: string;
  placeholder?: string;
  disabled?: boolean;
  required?: boolean;
  scope?: string;
  autocomplete?: string;
  "aria-labelledby"?: string;
  "aria-pressed"?: string;
  "aria-describedby"?: string;
  checked?: boolean;
  min?: string;
  max?: string;
  maxlength?: string;
  tabindex?: string;
  "aria-label"?: string;
  "aria-hidden"?: string;
  "aria-live"?: string;
  "aria-current"?: string;
  "data-testid"?: string;
  [data: `data-${string}`]: string | undefined;
  onclick?: (event: MouseEvent) => void;
  onchange?: (event: Event) => void;
  oninput?: (event: Event) => void;
  onsubmit?: (event: SubmitEvent) => void;
  onkeydown?: (event: KeyboardEvent) => void;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value as EventListener);
    } else if (key === "class") {
      element.className = String(value);
    } else if (key === "value" && "value" in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (key === "checked" && element instanceof HTMLInputElement) {
      element.checked = Boolean(value);
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child === null || child === undefined || child === false) continue;
    else parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces an element's children. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** CARDINAL_DELLA_ROVERE / DELLA_ROVERE -> "Della Rovere". */
export function words(name: string): string {
  return name
    .toLowerCase()
    .split("_")
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(" ");
}

/** A sentence from camelCase or snake_case: "bidMade" -> "Bid made". */
export function phrase(name: string): string {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** "1 seat", "3 seats". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
