// Il Trono di Mortadella's tokens as pictures: a round token with its symbol and the count
// beside it, named "People 3" as its chip said.
import { MORTADELLA_GLYPHS } from "./glyphs";
import { picture, placed, s } from "./svg";

const RIM: Record<string, string> = { people: "#3f78c9", tower: "#8a7355", book: "#7a2e1f", mortadella: "#c25a70" };

export function tokenPicture(name: string, label: string, count: number, pulse: boolean): SVGSVGElement {
  return picture(
    { label: `${label} ${count}`, width: 62, height: 32, shown: { width: 66, height: 34 }, class: `token tok-${name}${pulse ? " pulse" : ""}` },
    s("circle", { cx: 16, cy: 16, r: 14.5, fill: "#fff", stroke: RIM[name] ?? "#55504a", "stroke-width": 2.5 }),
    placed(3.5, 3.5, 0.63, MORTADELLA_GLYPHS[name]?.()),
    s("text", { x: 36, y: 23, "font-size": 19, "font-weight": 700, fill: "#1f1d1a" }, `${count}`),
  );
}

/** The Lombard token: a gold coin marked L, beside the words that name its holder. */
export function lombardToken(used: boolean): SVGSVGElement {
  return s(
    "svg",
    { viewBox: "0 0 32 32", width: 22, height: 22, class: `lombard${used ? " used" : ""}`, "aria-hidden": "true", focusable: "false" },
    s("circle", { cx: 16, cy: 16, r: 14, fill: used ? "#d6d3ce" : "#e2b007", stroke: "#6b4f00", "stroke-width": 2 }),
    s("text", { x: 16, y: 22, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: "#1f1d1a" }, "L"),
  );
}
