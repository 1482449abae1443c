// The marks on a seat's card: the seat that decides now ("to play"), and at the end the
// winners ("won"), the same in every game.
import { h } from "../dom";
import { t } from "../i18n";

/** The seat card's extra classes for these marks. */
export function markClasses(turn: boolean, won: boolean): string {
  return `${turn ? " turn" : ""}${won ? " won" : ""}`;
}

/** The badge beside the seat's name, or null. */
export function markBadge(turn: boolean, won: boolean): HTMLElement | null {
  if (turn) return h("span", { class: "turn-badge" }, t("marks.to-play"));
  if (won) return h("span", { class: "won-badge" }, t("marks.won"));
  return null;
}
