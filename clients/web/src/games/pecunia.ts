// Pecunia non olet: each player's sesterces, latrine (three seats with their Romans and
// round markers), queue, and hand (yours face up, the others' as a count).
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import { language, t, tn, type Key } from "../i18n";
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
    const shared = names.length > 1 ? t("pecunia.shared", new Intl.ListFormat(language(), { type: "conjunction" }).format(names), sesterces(most)) : "";
    return t("pecunia.turn-limit", view.turnLimit, shared);
  }
  return t("pecunia.target-rule", sesterces(view.target));
}

// Where the active player's turn stands, in the rulebook's steps (P4).
const PHASES: Partial<Record<Phase, Key>> = {
  [Phase.MARKERS]: "pecunia.phase.markers",
  [Phase.REFILL]: "pecunia.phase.refill",
  [Phase.DRAW]: "pecunia.phase.draw",
};

// The action cards as the game's words name them (services/pecunia/model.py ACTION_LABELS).
const CARD_NAMES: Partial<Record<ActionCardKind, Key>> = {
  [ActionCardKind.VILLA_DIXIUS]: "pecunia.card.villa-dixius",
  [ActionCardKind.QUEUE_JUMPER]: "pecunia.card.queue-jumper",
  [ActionCardKind.CASTOR_OIL]: "pecunia.card.castor-oil",
  [ActionCardKind.FISH_POISONING]: "pecunia.card.fish-poisoning",
  [ActionCardKind.SPECIAL_TAX]: "pecunia.card.special-tax",
  [ActionCardKind.POACHING]: "pecunia.card.poaching",
  [ActionCardKind.SWAP]: "pecunia.card.swap",
  [ActionCardKind.SENATE_MEETING]: "pecunia.card.senate-meeting",
  [ActionCardKind.REORDERING]: "pecunia.card.reordering",
  [ActionCardKind.EVICTION]: "pecunia.card.eviction",
};

/** "1 sesterce", "7 sesterces". */
function sesterces(amount: number): string {
  return tn("pecunia.sesterces", amount);
}

function phaseText(phase: Phase): string {
  const key = PHASES[phase];
  return key ? t(key) : words(Phase[phase]);
}

/** A place on a latrine: left, middle, right. */
function positionText(position: SeatPosition): string {
  const key = ({ [SeatPosition.LEFT]: "pecunia.left", [SeatPosition.MIDDLE]: "pecunia.middle", [SeatPosition.RIGHT]: "pecunia.right" } as Partial<Record<SeatPosition, Key>>)[position];
  return key ? t(key) : words(SeatPosition[position]);
}

function cardName(kind: ActionCardKind): string {
  const key = CARD_NAMES[kind];
  return key ? t(key) : words(ActionCardKind[kind]);
}

export const pecunia: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    beginDrawing(ctx.table.tableId);
    const over = view.phase === Phase.OVER;
    return h(
      "section",
      { class: "board pecunia", "aria-label": t("table.title") },
      h(
        "div",
        { class: "status" },
        h(
          "p",
          {},
          h("strong", {}, over ? t("borgia.over") : t("pecunia.turn", view.turn)),
          over ? null : [" · ", ctx.seats.tag(view.active), `: ${phaseText(view.phase)}`],
          t("pecunia.first-to", view.target),
        ),
        h("p", { class: "small" }, t("pecunia.piles", view.romanPileCount, view.actionPileCount)),
      ),
      h(
        "section",
        { class: "seats", "aria-label": t("pecunia.players") },
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
              { class: "latrine", role: "group", "aria-label": t("pecunia.latrine") },
              player.latrine.map((place) => {
                const where = positionText(place.position);
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
              h("span", { class: "row-label" }, t("pecunia.queue")),
              player.queue.length ? h("span", { class: "cards" }, player.queue.map((card) => roman(card, { small: true, entered: queued.has(card.id) }))) : t("pecunia.empty"),
            ),
            h(
              "div",
              { class: "hand small", "data-testid": `hand-${player.seat}` },
              player.handVisible
                ? [h("span", { class: "row-label" }, t("pecunia.hand")), player.hand.length ? h("span", { class: "cards" }, player.hand.map((card) => actionCard(cardName(card.kind)))) : t("pecunia.empty"), cardsHelp(ctx.table.gameId, ActionCardKindSchema, player.hand.map((card) => card.kind))]
                : [
                    h("span", { class: "row-label" }, tn("pecunia.hidden-hand", player.handCount)),
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
