// Pecunia non olet: each player's sesterces, latrine (three seats with their Romans and
// round markers), queue, and hand (yours face up, the others' as a count).
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import {
  ActionCardKind,
  EndReason,
  Phase,
  RomanKind,
  SeatPosition,
  type RomanCard,
  type View,
} from "../gen/tavola/pecunia/v1/pecunia_pb";
import type { Ctx, GameRenderer } from "./api";

function roman(card: RomanCard | undefined): HTMLElement {
  if (!card) return h("span", { class: "card empty" }, "—");
  return h(
    "span",
    { class: `card roman-${RomanKind[card.kind].toLowerCase()}`, title: `${card.rounds} rounds, pays ${card.sesterces}` },
    `${words(RomanKind[card.kind])} ${card.rounds}/${card.sesterces}`,
  );
}

export const pecunia: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    const over = view.phase === Phase.OVER;
    return h(
      "section",
      { class: "board pecunia", "aria-label": "Table" },
      h(
        "div",
        { class: "status" },
        h(
          "p",
          {},
          h("strong", {}, over ? "The game is over." : `Turn ${view.turn}`),
          over ? null : [" · ", ctx.seats.tag(view.active), ` plays (${words(Phase[view.phase])})`],
          ` · first to ${view.target} sesterces wins`,
        ),
        h("p", { class: "small" }, `Roman pile ${view.romanPileCount} · action pile ${view.actionPileCount}`),
      ),
      h(
        "section",
        { class: "seats", "aria-label": "Players" },
        view.players.map((player) =>
          h(
            "div",
            { class: `seat-card${player.seat === ctx.me ? " me" : ""}`, "data-testid": `seat-${player.seat}` },
            h("div", { class: "seat-head" }, ctx.seats.tag(player.seat), h("strong", {}, `${player.sesterces} sesterces`)),
            h(
              "div",
              { class: "latrine" },
              player.latrine.map((place) =>
                h(
                  "span",
                  { class: "place" },
                  h("span", { class: "small muted" }, words(SeatPosition[place.position])),
                  place.romans.length
                    ? place.romans.map((r) => h("span", {}, roman(r.card), h("span", { class: "markers", title: "round markers" }, ` ●${r.markers}`)))
                    : roman(undefined),
                ),
              ),
            ),
            h("div", { class: "queue small" }, "Queue: ", player.queue.length ? player.queue.map((card) => roman(card)) : "empty"),
            h(
              "div",
              { class: "hand small", "data-testid": `hand-${player.seat}` },
              player.handVisible
                ? ["Hand: ", player.hand.length ? player.hand.map((card) => h("span", { class: "card action" }, words(ActionCardKind[card.kind]))) : "empty"]
                : `Hand: ${player.handCount} card(s), hidden`,
            ),
          ),
        ),
      ),
    );
  },
  ending(message: Message, ctx: Ctx): HTMLElement | undefined {
    const view = message as View;
    if (view.phase !== Phase.OVER) return undefined;
    return h(
      "div",
      {},
      h("p", {}, view.endReason === EndReason.TARGET_REACHED ? `${view.target} sesterces reached.` : "The turn limit was reached: the most sesterces win."),
      h(
        "ul",
        { class: "plain" },
        [...view.players].sort((a, b) => b.sesterces - a.sesterces).map((p) => h("li", {}, ctx.seats.tag(p.seat), ` ${p.sesterces} sesterces`)),
      ),
    );
  },
};
