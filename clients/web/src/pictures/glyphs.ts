// The symbols on the dice and tokens, each drawn in a 40 × 40 box (centre 20, 20) in dark
// ink with one colour, so that they read on a light face at 28 px and up.
import { s, type SvgChild } from "./svg";

const INK = "#1f1d1a";
const line = { stroke: INK, "stroke-width": 2, "stroke-linejoin": "round", "stroke-linecap": "round" };

// House of Borgia's faces (rulebook: five actions and Fate, which counts as any).
export const BORGIA_GLYPHS: Record<string, () => SvgChild> = {
  // A coin with a purse's string: money changes hands.
  bribe: () => [
    s("circle", { cx: 20, cy: 21, r: 12, fill: "#e2b007", ...line }),
    s("circle", { cx: 20, cy: 21, r: 7.5, fill: "none", stroke: INK, "stroke-width": 1.5 }),
    s("path", { d: "M20 16v10M17 18.5h5a2 2 0 0 1 0 4h-4a2 2 0 0 0 0 4h5", fill: "none", stroke: INK, "stroke-width": 1.6 }),
  ],
  // A flask with a drop.
  poison: () => [
    s("path", { d: "M16 7h8v8l7 12a5 5 0 0 1-4.5 7h-13a5 5 0 0 1-4.5-7l7-12z", fill: "#5fb24a", ...line }),
    s("path", { d: "M14 6h12", ...line }),
    s("circle", { cx: 17, cy: 27, r: 2.2, fill: "#fff" }),
    s("circle", { cx: 23.5, cy: 24, r: 1.4, fill: "#fff" }),
  ],
  // Scales.
  judgement: () => [
    s("path", { d: "M20 7v24M12 33h16M8 12h24", fill: "none", ...line }),
    s("path", { d: "M8 12l-4.5 10M8 12l4.5 10M32 12l-4.5 10M32 12l4.5 10", fill: "none", stroke: INK, "stroke-width": 1.4 }),
    s("path", { d: "M2.5 22h11a5.5 4 0 0 1-11 0zM26.5 22h11a5.5 4 0 0 1-11 0z", fill: "#3f78c9", ...line }),
  ],
  // A pointing warning: the Antipope accused.
  accusation: () => [
    s("path", { d: "M20 5l16 28H4z", fill: "#d8453b", ...line }),
    s("path", { d: "M20 14v9", stroke: "#fff", "stroke-width": 3.5, "stroke-linecap": "round" }),
    s("circle", { cx: 20, cy: 28.5, r: 2, fill: "#fff" }),
  ],
  // A speech bubble whispering.
  rumor: () => [
    s("path", { d: "M6 9h28a3 3 0 0 1 3 3v14a3 3 0 0 1-3 3H18l-8 6v-6H6a3 3 0 0 1-3-3V12a3 3 0 0 1 3-3z", fill: "#9a9a9a", ...line }),
    [13, 20, 27].map((cx) => s("circle", { cx, cy: 19, r: 2.3, fill: "#fff" })),
  ],
  // A star: Fate counts as any action.
  fate: () => s("path", { d: "M20 4l4.7 10 10.9 1.3-8 7.5 2.1 10.8L20 28.3l-9.7 5.3 2.1-10.8-8-7.5L15.3 14z", fill: "#8e4fc4", ...line }),
};

// Il Trono di Mortadella's symbols (dice and tokens).
export const MORTADELLA_GLYPHS: Record<string, () => SvgChild> = {
  // Two townsfolk.
  people: () => [
    s("circle", { cx: 14, cy: 12, r: 5, fill: "#3f78c9", ...line }),
    s("path", { d: "M5 33v-6a9 9 0 0 1 18 0v6z", fill: "#3f78c9", ...line }),
    s("circle", { cx: 27, cy: 14, r: 4.5, fill: "#e2b007", ...line }),
    s("path", { d: "M19 33v-5a8 8 0 0 1 16 0v5z", fill: "#e2b007", ...line }),
  ],
  // A battlemented tower with a door.
  tower: () => [
    s("path", { d: "M10 35V12H8V5h5v3h4V5h6v3h4V5h5v7h-2v23z", fill: "#b9a58a", ...line }),
    s("path", { d: "M17 35v-7a3 3 0 0 1 6 0v7z", fill: INK }),
    s("rect", { x: 18.5, y: 15, width: 3, height: 5, fill: INK }),
  ],
  // An open book.
  book: () => [
    s("path", { d: "M20 11c-4-3-9-3-15-2v22c6-1 11-1 15 2c4-3 9-3 15-2V9c-6-1-11-1-15 2z", fill: "#f4e9cf", ...line }),
    s("path", { d: "M20 11v22", ...line }),
    s("path", { d: "M9 15h7M9 19h7M9 23h7M24 15h7M24 19h7M24 23h7", stroke: "#7a2e1f", "stroke-width": 1.4 }),
  ],
  // A slice of mortadella: pink, with its fat.
  mortadella: () => [
    s("ellipse", { cx: 20, cy: 20, rx: 15, ry: 14, fill: "#f08ca0", ...line }),
    s("ellipse", { cx: 20, cy: 20, rx: 11.5, ry: 10.5, fill: "#f6b3c0", stroke: "#c25a70", "stroke-width": 1 }),
    [
      [15, 16],
      [24, 14],
      [21, 23],
      [13, 24],
      [27, 22],
    ].map(([cx, cy]) => s("circle", { cx, cy, r: 1.7, fill: "#fff" })),
  ],
  // A goblet of wine.
  wine: () => [
    s("path", { d: "M11 6h18c0 10-3 15-9 15s-9-5-9-15z", fill: "#9b1b3a", ...line }),
    s("path", { d: "M20 21v10M13 34h14", fill: "none", ...line }),
  ],
  // A rat: the plague.
  rat: () => [
    s("path", { d: "M7 27c9 8 25 3 30-2", fill: "none", stroke: INK, "stroke-width": 1.6, "stroke-linecap": "round" }),
    s("path", { d: "M10 27c0-7 6-12 13-12 6 0 9 4 10 8l4 3-4 1H10z", fill: "#7d7d7d", ...line }),
    s("circle", { cx: 25, cy: 16, r: 3.5, fill: "#b5b5b5", ...line }),
    s("circle", { cx: 31, cy: 22, r: 1.3, fill: INK }),
  ],
};
