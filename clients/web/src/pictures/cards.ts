// Pecunia non olet's cards as pictures: a Roman with its kind, its rounds seated (top left)
// and the sesterces it pays (top right), and under a seated one its round markers; an action
// card with its name; a card's back; an empty latrine seat.
import { s, picture, type SvgChild } from "./svg";

// Each kind's colours: a light card, its dark ink (text and figure) at a contrast of 7:1 and up.
const KINDS: Record<string, { name: string; fill: string; ink: string }> = {
  senator: { name: "Senator", fill: "#f1e2f6", ink: "#5b2a6e" },
  citizen: { name: "Citizen", fill: "#e0ecf8", ink: "#1f4770" },
  woman: { name: "Woman", fill: "#fbe4e4", ink: "#7f2626" },
  slave: { name: "Slave", fill: "#efe8da", ink: "#4f4126" },
};

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

// What marks each kind beside its colour: a senator's laurel, a woman's veil, a slave's collar.
function figure(kind: string, ink: string): SvgChild {
  const mark: Record<string, SvgChild> = {
    senator: s("path", { d: "M19 31c0-7 4-11 9-11s9 4 9 11", fill: "none", stroke: "#2f7a2f", "stroke-width": 2.5, "stroke-dasharray": "3 1.5" }),
    woman: s("path", { d: "M19 34c-1-9 3-14 9-14s10 5 9 14l-3-5c-1-4-3-5-6-5s-5 1-6 5z", fill: ink }),
    slave: s("rect", { x: 22, y: 39, width: 12, height: 3, rx: 1.5, fill: "#8a8a8a", stroke: "#3d3a36", "stroke-width": 0.8 }),
  };
  return [
    s("circle", { cx: 28, cy: 32, r: 7, fill: "#f2d3b3", stroke: ink, "stroke-width": 1.5 }),
    s("path", { d: "M15 58v-5a13 11 0 0 1 26 0v5z", fill: ink }),
    mark[kind] ?? null,
  ];
}

export interface RomanCardOptions {
  kind: string;
  rounds: number;
  sesterces: number;
  /** Seated: its round markers, drawn under it. */
  markers?: number;
  small?: boolean;
  className?: string;
}

export function romanLabel(options: RomanCardOptions): string {
  const kind = KINDS[options.kind]?.name ?? options.kind;
  const seated = options.markers === undefined ? "" : `, ${plural(options.markers, "round marker")} left`;
  return `${kind}: sits ${plural(options.rounds, "round")}, pays ${plural(options.sesterces, "sesterce")}${seated}`;
}

export function romanCard(options: RomanCardOptions): SVGSVGElement {
  const look = KINDS[options.kind] ?? { name: options.kind, fill: "#fff", ink: "#1f1d1a" };
  const seated = options.markers !== undefined;
  const height = seated ? 90 : 78;
  const scale = options.small ? 0.86 : 1;
  const markers = Math.max(0, options.markers ?? 0);
  const gap = markers > 5 ? 44 / markers : 9;
  return picture(
    {
      label: romanLabel(options),
      width: 56,
      height,
      shown: { width: 56 * scale, height: height * scale },
      class: `card roman roman-${options.kind}${options.className ? ` ${options.className}` : ""}`,
    },
    s("rect", { x: 1, y: 1, width: 54, height: 76, rx: 5, fill: look.fill, stroke: look.ink, "stroke-width": 1.5 }),
    s("circle", { cx: 11.5, cy: 11.5, r: 8, fill: "#fff", stroke: look.ink, "stroke-width": 1.3 }),
    s("text", { x: 11.5, y: 16, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: look.ink }, options.rounds),
    s("circle", { cx: 44.5, cy: 11.5, r: 8, fill: "#e2b007", stroke: "#6b4f00", "stroke-width": 1.3 }),
    s("text", { x: 44.5, y: 16, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#1f1d1a" }, options.sesterces),
    figure(options.kind, look.ink),
    s("text", { x: 28, y: 71, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: look.ink }, look.name),
    seated
      ? Array.from({ length: markers }, (_, i) =>
          s("circle", { class: "marker", cx: 28 + (i - (markers - 1) / 2) * gap, cy: 84, r: 3.6, fill: "#3d3a36" }),
        )
      : null,
  );
}

/** An action card's name in at most two lines (at a space or after a hyphen). */
function nameLines(name: string): string[] {
  const cut = name.indexOf(" ") >= 0 ? name.indexOf(" ") : name.indexOf("-") + 1;
  if (name.length <= 9 || cut <= 0) return [name];
  return [name.slice(0, cut).trim(), name.slice(cut).trim()];
}

export function actionCard(name: string, className = ""): SVGSVGElement {
  const lines = nameLines(name);
  // Bold text is about 0.6 em a letter: a long word gets a smaller size to keep inside the card.
  const longest = Math.max(...lines.map((line) => line.length));
  const size = Math.min(10.5, 54 / (longest * 0.6));
  return picture(
    { label: name, width: 64, height: 78, class: `card action${className ? ` ${className}` : ""}` },
    s("rect", { x: 1, y: 1, width: 62, height: 76, rx: 5, fill: "#eef3ff", stroke: "#34508a", "stroke-width": 1.5 }),
    s("circle", { cx: 32, cy: 17, r: 9, fill: "#a3262a", stroke: "#5e1215", "stroke-width": 1.2 }),
    s("path", { d: "M27 17h10M32 12v10", stroke: "#fde6e6", "stroke-width": 1.6 }),
    lines.map((text, i) =>
      s("text", { x: 32, y: (lines.length === 1 ? 50 : 44) + i * 13, "text-anchor": "middle", "font-size": size.toFixed(1), "font-weight": 700, fill: "#1c2f5a" }, text),
    ),
  );
}

/** A card face down: decoration beside the words that count it (hidden from screen readers). */
export function cardBack(): SVGSVGElement {
  return s(
    "svg",
    { viewBox: "0 0 40 56", width: 24, height: 34, class: "card back", "aria-hidden": "true", focusable: "false" },
    s("rect", { x: 1, y: 1, width: 38, height: 54, rx: 4, fill: "#7a2e1f", stroke: "#3d150d", "stroke-width": 1.2 }),
    s("rect", { x: 5, y: 5, width: 30, height: 46, rx: 2, fill: "none", stroke: "#f3d9cf", "stroke-width": 1 }),
    s("path", { d: "M20 14l8 14-8 14-8-14z", fill: "#e2b007" }),
  );
}

/** A latrine seat nobody sits on. */
export function emptySeat(): SVGSVGElement {
  return picture(
    { label: "empty seat", width: 56, height: 78, class: "card empty" },
    s("rect", { x: 1, y: 1, width: 54, height: 76, rx: 5, fill: "#f4f1ea", stroke: "#8a8378", "stroke-width": 1.2, "stroke-dasharray": "4 3" }),
    s("ellipse", { cx: 28, cy: 39, rx: 13, ry: 9, fill: "#4a443c" }),
  );
}
