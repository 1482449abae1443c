// House of Borgia's ladder as a picture: the six cardinal mats top first, each with its
// influence tokens and number, the Antipope marker and the viewer's own puppet. A cardinal
// that changed place slides from where it was; an influence that changed pulses.
import { before, changed } from "./motion";
import { s, picture } from "./svg";
import { t } from "../i18n";

export interface Mat {
  name: string;
  influence: number;
  antipope: boolean;
  mine: boolean;
  /** At the end: the cardinal elected pope. */
  pope?: boolean;
}

const WIDTH = 320;
const ROW = 46;
const TOKENS_FROM = 162;
const TOKENS_TO = 264;

function matLabel(mat: Mat, place: number): string {
  const notes = [mat.pope ? t("ladder.elected") : "", mat.antipope ? t("ladder.antipope") : "", mat.mine ? t("ladder.your-puppet") : ""].filter(Boolean);
  return `${place}. ${mat.name}, ${mat.influence} influence${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

/** The words under a cardinal's name, short enough to end before its tokens. */
function caption(mat: Mat): string {
  const notes = [mat.pope ? t("ladder.pope") : "", mat.antipope ? `⚑ ${t("ladder.antipope")}` : "", mat.mine ? (mat.pope || mat.antipope ? t("ladder.yours") : t("ladder.your-puppet")) : ""];
  return notes.filter(Boolean).join(" · ");
}

/** Influence tokens: one row of up to ten, beyond that two rows, closer together when many. */
function tokens(count: number): SVGElement[] {
  const shown = Math.max(0, count);
  const rows = shown > 10 ? 2 : 1;
  const perRow = Math.ceil(shown / rows);
  const step = perRow > 1 ? Math.min(12.5, (TOKENS_TO - TOKENS_FROM) / (perRow - 1)) : 0;
  const radius = rows === 1 ? 6 : 5.2;
  return Array.from({ length: shown }, (_, i) => {
    const row = Math.floor(i / perRow);
    return s("circle", {
      cx: TOKENS_FROM + (i % perRow) * step,
      cy: rows === 1 ? 22 : 15 + row * 13,
      r: radius,
      fill: "#f7f4ee",
      stroke: "#3d3a36",
      "stroke-width": 1.4,
    });
  });
}

/** The ladder, top first. */
export function ladderPicture(mats: Mat[]): SVGSVGElement {
  const height = mats.length * ROW + 4;
  return picture(
    { label: `Ladder, top first: ${mats.map((mat, i) => matLabel(mat, i + 1)).join("; ")}`, width: WIDTH, height, class: "ladder-picture", testid: "ladder" },
    mats.map((mat, index) => {
      const y = 2 + index * ROW;
      const key = `ladder:${mat.name}`;
      const was = before(key);
      const moved = changed(key, String(y)) && was !== undefined;
      const pulse = changed(`influence:${mat.name}`, String(mat.influence));
      return s(
        "g",
        { transform: `translate(0 ${y})` },
        s(
          "g",
          // Slides from its old place: style.css animates from --from (user units) to none.
          { class: moved ? "slide" : undefined, style: moved ? `--from: ${Number(was) - y}px` : undefined },
          s("rect", {
            x: 2,
            y: 2,
            width: WIDTH - 4,
            height: ROW - 6,
            rx: 7,
            fill: mat.mine ? "#d6ebf3" : "#fffaf0",
            stroke: mat.mine ? "#1f5f7a" : "#b9ad9b",
            "stroke-width": mat.mine ? 2.5 : 1.2,
          }),
          s("text", { x: 16, y: 27, "text-anchor": "middle", "font-size": 13, fill: "#5e584f" }, index + 1),
          s("text", { x: 30, y: caption(mat) ? 21 : 27, "font-size": 15, "font-weight": 700, fill: mat.mine ? "#1f5f7a" : "#1f1d1a" }, mat.name),
          caption(mat) ? s("text", { x: 30, y: 35, "font-size": 11, fill: mat.antipope || mat.pope ? "#8a3b00" : "#1f5f7a", "font-weight": 600 }, caption(mat)) : null,
          tokens(mat.influence),
          s(
            "text",
            { x: WIDTH - 14, y: 29, "text-anchor": "end", "font-size": 18, "font-weight": 700, fill: "#1f1d1a", class: pulse ? "pulse" : undefined },
            mat.influence,
          ),
        ),
      );
    }),
  );
}
