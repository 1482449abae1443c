// Pecunia non olet: each player's sesterces, latrine (three seats with their Romans and
// round markers), queue, and hand (yours face up, the others' as a count).
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import {
  ActionCardKind,
  ActionCardKindSchema,
  EndReason,
  Phase,
  RomanKind,
  SeatPosition,
  type RomanCard,
  type View,
} from "../gen/tavola/pecunia/v1/pecunia_pb";
import { actionCard, cardBack, emptySeat, romanCard } from "../pictures/cards";
import { before, beginDrawing, changed } from "../pictures/motion";
import { cardsHelp } from "../help";
import type { Ctx, GameRenderer } from "./api";
import { markBadge, markClasses } from "./marks";

/** A Roman card; `markers` when seated; `entered`: it slides in (it was not there before). */
function roman(card: RomanCard, options: { markers?: number; small?: boolean; entered?: boolean } = {}): SVGSVGElement {
  return romanCard({
    kind: RomanKind[card.kind].toLowerCase(),
    rounds: card.rounds,
    sesterces: card.sesterces,
    markers: options.markers,
    small: options.small,
    className: options.entered ? "enter" : "",
  });
}

/** The cards of a row (a queue, a latrine seat) that were not in it at the last drawing. */
function arrivals(key: string, ids: number[]): Set<number> {
  const was = before(key);
  changed(key, ids.join(","));
  if (was === undefined) return new Set();
  const old = new Set(was.split(",").filter(Boolean).map(Number));
  return new Set(ids.filter((id) => !old.has(id)));
}

/** The rule that decided the end, and how a tie was settled. */
function endRule(view: View, ctx: Ctx): string {
  const names = view.winners.map((seat) => ctx.seats.name(seat));
  if (view.endReason === EndReason.TURN_LIMIT) {
    const most = Math.max(...view.players.map((p) => p.sesterces));
    const shared = names.length > 1 ? ` ${names.join(" and ")} are tied with ${sesterces(most)} and share the win.` : "";
    return `The turn limit (${view.turnLimit} turns) was reached: the most sesterces win, and players tied on the most share the win (rule P8).${shared}`;
  }
  return `The game ends the moment a player's sesterces reach the target, ${sesterces(view.target)} (rule P7): the first to reach it wins, whatever the others hold.`;
}

// Where the active player's turn stands, in the rulebook's steps (P4).
const PHASES: Partial<Record<Phase, string>> = {
  [Phase.MARKERS]: "remove round markers and collect sesterces",
  [Phase.REFILL]: "refill the latrine from the queue",
  [Phase.DRAW]: "play action cards or draw one",
};

// The action cards as the game's words name them (services/pecunia/model.py ACTION_LABELS).
const CARD_NAMES: Partial<Record<ActionCardKind, string>> = {
  [ActionCardKind.VILLA_DIXIUS]: "Villa Dixius",
  [ActionCardKind.QUEUE_JUMPER]: "Queue-jumper",
  [ActionCardKind.CASTOR_OIL]: "Castor oil",
  [ActionCardKind.FISH_POISONING]: "Fish poisoning",
  [ActionCardKind.SPECIAL_TAX]: "Special tax",
  [ActionCardKind.POACHING]: "Poaching",
  [ActionCardKind.SWAP]: "Swap",
  [ActionCardKind.SENATE_MEETING]: "Senate meeting",
  [ActionCardKind.REORDERING]: "Reordering",
  [ActionCardKind.EVICTION]: "Eviction",
};

/** "1 sesterce", "7 sesterces". */
function sesterces(amount: number): string {
  return `${amount} sesterce${amount === 1 ? "" : "s"}`;
}

function cardName(kind: ActionCardKind): string {
  return CARD_NAMES[kind] ?? words(ActionCardKind[kind]);
}

export const pecunia: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    beginDrawing(ctx.table.tableId);
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
          over ? null : [" · ", ctx.seats.tag(view.active), `: ${PHASES[view.phase] ?? words(Phase[view.phase])}`],
          ` · first to ${view.target} sesterces wins`,
        ),
        h("p", { class: "small" }, `Roman pile ${view.romanPileCount} · action pile ${view.actionPileCount}`),
      ),
      h(
        "section",
        { class: "seats", "aria-label": "Players" },
        view.players.map((player) => {
          const queued = arrivals(`queue:${player.seat}`, player.queue.map((card) => card.id));
          const paid = changed(`sesterces:${player.seat}`, String(player.sesterces));
          const turn = !over && player.seat === view.active;
          return h(
            "div",
            { class: `seat-card${player.seat === ctx.me ? " me" : ""}${markClasses(turn, view.winners.includes(player.seat))}`, "data-testid": `seat-${player.seat}` },
            h(
              "div",
              { class: "seat-head" },
              ctx.seats.tag(player.seat),
              markBadge(turn, view.winners.includes(player.seat)),
              h("strong", { class: `purse${paid ? " pulse" : ""}` }, sesterces(player.sesterces)),
            ),
            h(
              "div",
              { class: "latrine", role: "group", "aria-label": "Latrine" },
              player.latrine.map((place) => {
                const where = words(SeatPosition[place.position]);
                const seated = arrivals(`latrine:${player.seat}:${place.position}`, place.romans.map((r) => r.card?.id ?? -1));
                return h(
                  "span",
                  { class: "place" },
                  h("span", { class: "small muted" }, where),
                  h(
                    "span",
                    { class: "place-cards" },
                    place.romans.length
                      ? place.romans.map((r) => (r.card ? roman(r.card, { markers: r.markers, entered: seated.has(r.card.id) }) : null))
                      : emptySeat(),
                  ),
                );
              }),
            ),
            h(
              "div",
              { class: "queue small" },
              h("span", { class: "row-label" }, "Queue (its start first): "),
              player.queue.length ? h("span", { class: "cards" }, player.queue.map((card) => roman(card, { small: true, entered: queued.has(card.id) }))) : "empty",
            ),
            h(
              "div",
              { class: "hand small", "data-testid": `hand-${player.seat}` },
              player.handVisible
                ? [h("span", { class: "row-label" }, "Hand: "), player.hand.length ? h("span", { class: "cards" }, player.hand.map((card) => actionCard(cardName(card.kind)))) : "empty", cardsHelp(ctx.table.gameId, ActionCardKindSchema, player.hand.map((card) => card.kind))]
                : [
                    h("span", { class: "row-label" }, `Hand: ${player.handCount} ${player.handCount === 1 ? "card" : "cards"}, hidden`),
                    h("span", { class: "backs" }, Array.from({ length: Math.min(player.handCount, 12) }, () => cardBack())),
                  ],
            ),
          );
        }),
      ),
    );
  },
  ending(message: Message, ctx: Ctx): HTMLElement | undefined {
    const view = message as View;
    if (view.phase !== Phase.OVER) return undefined;
    return h(
      "div",
      {},
      h(
        "ul",
        { class: "plain" },
        [...view.players].sort((a, b) => b.sesterces - a.sesterces).map((p) => h("li", {}, ctx.seats.tag(p.seat), ` ${sesterces(p.sesterces)}`)),
      ),
      h("p", { class: "tie", "data-testid": "end-rule" }, endRule(view, ctx)),
    );
  },
};
