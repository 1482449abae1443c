// Dice as pictures: a rounded face in the symbol's colour with its glyph, or a hidden die.
// Each is role="img" named by its face ("Bribe"), the word its chip used to show.
import { s, picture, placed, type SvgChild } from "./svg";

// Face colours: light, so that the dark glyph lines keep their contrast.
const FACE_FILL: Record<string, string> = {
  bribe: "#fff2c2",
  poison: "#dcf3d6",
  judgement: "#dbe8ff",
  accusation: "#ffdede",
  rumor: "#eeeeee",
  fate: "#f1e3ff",
  people: "#e3edff",
  tower: "#efe8dc",
  book: "#faf3e1",
  mortadella: "#fde6ea",
  wine: "#f6dde5",
  rat: "#e6e6e6",
};

export interface DieOptions {
  /** The glyph's key (BORGIA_GLYPHS, MORTADELLA_GLYPHS). */
  face: string;
  glyph: () => SvgChild;
  /** The face in words: the die's accessible name. */
  label: string;
  /** The CSS classes it carries besides "die" (the old chips' classes, for tests and styles). */
  className: string;
  /** Animates a roll (a class of style.css) when set. */
  rolled?: boolean;
  size?: number;
}

export function die(options: DieOptions): SVGSVGElement {
  const size = options.size ?? 34;
  return picture(
    { label: options.label, width: 40, height: 40, shown: { width: size, height: size }, class: `die ${options.className}${options.rolled ? " roll" : ""}` },
    s("rect", { x: 1.5, y: 1.5, width: 37, height: 37, rx: 7, fill: FACE_FILL[options.face] ?? "#fff", stroke: "#55504a", "stroke-width": 1.5 }),
    placed(5, 5, 0.75, options.glyph()),
  );
}

/** A die behind its owner's screen: a grey face with a question mark. */
export function hiddenDie(size = 34): SVGSVGElement {
  return picture(
    { label: "hidden die", width: 40, height: 40, shown: { width: size, height: size }, class: "die hidden" },
    s("rect", { x: 1.5, y: 1.5, width: 37, height: 37, rx: 7, fill: "#d6d3ce", stroke: "#6b655c", "stroke-width": 1.5 }),
    s("text", { x: 20, y: 28, "text-anchor": "middle", "font-size": 22, "font-weight": 700, fill: "#3d3a36" }, "?"),
  );
}
