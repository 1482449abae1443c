// House of Borgia: the ladder of cardinals with their influence, the bid, every seat's
// dice (your own faces, the others' as counts until a call reveals them), rumors, what
// each seat performed, and at the end the puppets, bonuses and eliminations.
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import { language, t, tn, type Key } from "../i18n";
import {
  ActionKind,
  Cardinal,
  Direction,
  Face,
  Phase,
  type Action,
  type Bid,
  type FinalResult,
  type View,
} from "../gen/tavola/borgia/v1/borgia_pb";
import { die, hiddenDie } from "../pictures/dice";
import { BORGIA_GLYPHS } from "../pictures/glyphs";
import { ladderPicture } from "../pictures/ladder";
import { beginDrawing, changed } from "../pictures/motion";
import type { Ctx, GameRenderer } from "./api";
import { markBadge, markClasses } from "./marks";

const cardinal = (value: Cardinal) => words(Cardinal[value]);
/** A face (or a bid's action, named alike) in the page's language: "Bribe", "Corruzione". */
const FACES: Record<string, Key> = {
  BRIBE: "borgia.face.bribe",
  POISON: "borgia.face.poison",
  JUDGEMENT: "borgia.face.judgement",
  ACCUSATION: "borgia.face.accusation",
  RUMOR: "borgia.face.rumor",
  FATE: "borgia.face.fate",
};
const faceWord = (name: string) => (FACES[name] ? t(FACES[name]) : words(name));
const face = (value: Face) => faceWord(Face[value]);
const kind = (value: ActionKind) => faceWord(ActionKind[value]);
/** "a, b and c" as the page's language writes a list. */
const listed = (items: string[]) => new Intl.ListFormat(language(), { type: "conjunction" }).format(items);
/** A seat in the words of a move: its name, or "you" (as the language says it after "in front of"). */
const seatWord = (seat: number, ctx: Ctx) => (seat === ctx.me ? t("borgia.you") : ctx.seats.name(seat));
const bidText = (bid: Bid) => `${bid.count} x ${kind(bid.action)}`; // as the history writes a bid

function faceDie(value: Face, rolled: boolean, size?: number): SVGSVGElement {
  const key = Face[value].toLowerCase();
  return die({ face: key, glyph: BORGIA_GLYPHS[key] ?? (() => null), label: face(value), className: `face-${key}`, rolled, size });
}

/** A seat's dice; they roll when they changed since the last drawing (a new round, a call). */
function dice(faces: Face[], rolled = false): HTMLElement {
  return h("span", { class: "dice" }, faces.map((value) => faceDie(value, rolled)));
}

function hiddenDice(count: number, rolled: boolean): HTMLElement {
  return h(
    "span",
    { class: `dice${rolled ? " rolled" : ""}`, title: t("borgia.hidden") },
    Array.from({ length: count }, () => hiddenDie()),
  );
}

/** Your own dice, large, each with its face in words under it (the glyphs' legend too). */
function namedDice(faces: Face[], rolled: boolean): HTMLElement {
  return h(
    "span",
    { class: "dice named" },
    faces.map((value) => h("span", { class: "named-die" }, faceDie(value, rolled, 40), h("span", { class: "die-word", "aria-hidden": "true" }, face(value)))),
  );
}

/** The seat that decides now: the bidder, the responder, or the performer. */
function deciding(view: View): number | undefined {
  if (view.phase === Phase.OVER) return undefined;
  if (view.phase === Phase.RESPOND) return view.responderSeat;
  return view.activeSeat;
}

/** The seat whose bid stands (after an allow it is not the active seat, B4). */
function bidder(view: View): number | undefined {
  return view.bidderSeat;
}

/** A performed action, short, in the game's words ("Bribe: Medici to the top"). */
function performedText(action: Action): string {
  const kindCase = action.kind;
  switch (kindCase.case) {
    case "bribe":
      return t(kindCase.value.direction === Direction.TOP ? "borgia.bribe.top" : "borgia.bribe.bottom", cardinal(kindCase.value.cardinal));
    case "poison":
      return kindCase.value.first === kindCase.value.second
        ? t("borgia.poison.two", cardinal(kindCase.value.first))
        : t("borgia.poison.short", cardinal(kindCase.value.first), cardinal(kindCase.value.second));
    case "judgementPair":
      return `${t("borgia.face.judgement")}: ${cardinal(kindCase.value.source)} → ${cardinal(kindCase.value.target)}`;
    case "judgementSplit":
      return `${t("borgia.face.judgement")}: ${cardinal(kindCase.value.sourceA)}, ${cardinal(kindCase.value.sourceB)} → ${cardinal(kindCase.value.targetA)}, ${cardinal(kindCase.value.targetB)}`;
    case "accuse":
      return `${t("borgia.face.accusation")}: ${cardinal(kindCase.value.cardinal)}`;
    case "rumor":
      return `${t("borgia.face.rumor")}: ${cardinal(kindCase.value.card)}`;
    case "performNothing":
      return t("borgia.nothing");
    default:
      return "";
  }
}

function status(view: View, ctx: Ctx): HTMLElement {
  if (view.phase === Phase.OVER) return h("p", { class: "status" }, t("borgia.over"));
  const total = view.seats.reduce((sum, seat) => sum + seat.diceCount, 0);
  const standing = bidder(view);
  const lines: (HTMLElement | string)[] = [h("strong", {}, t("borgia.round", view.roundNumber)), tn("borgia.dice-on-table", total)];
  if (view.bid) {
    // The bid as a picture too: its count beside its face; a new bid pops in.
    const fresh = changed("bid", `${bidText(view.bid)}|${standing}`);
    const shown = Face[ActionKind[view.bid.action] as keyof typeof Face] ?? Face.UNSPECIFIED; // the same names
    lines.push(
      t("borgia.bid-label"),
      h(
        "strong",
        { class: `bid${fresh ? " pop" : ""}`, "data-testid": "standing-bid" },
        shown !== Face.UNSPECIFIED ? faceDie(shown, false, 24) : null,
        bidText(view.bid),
      ),
    );
    if (standing !== undefined) lines.push(t("borgia.by"), ctx.seats.tag(standing));
  } else {
    lines.push(t("borgia.no-bid"));
  }
  let next: (HTMLElement | string)[] = [];
  if (view.phase === Phase.RESPOND && view.responderSeat !== undefined) {
    next = [ctx.seats.tag(view.responderSeat), t("borgia.must-respond")];
  } else if (view.phase === Phase.PERFORM) {
    next = [ctx.seats.tag(view.activeSeat), t("borgia.performs")];
  } else if (view.phase === Phase.BID) {
    next = [ctx.seats.tag(view.activeSeat), t("borgia.bids")];
  }
  return h(
    "div",
    { class: "status" },
    h("p", {}, lines),
    h("p", {}, next),
    view.called ? h("p", { class: "alert-text" }, t("borgia.called")) : null,
  );
}

/** The ladder as it stands; at the end, the final one: after the dice bonus and every
 * penalty, without the cardinals that left it (B9, B10), as the pope was chosen from. */
function ladder(view: View, mine: Set<Cardinal>): HTMLElement {
  // At the end, the final ladder: the remaining dice's influence added, eliminated cardinals gone.
  const final = view.result;
  const influence = new Map((final ?? view).influence.map((item) => [item.cardinal, item.influence]));
  const mats = (final ?? view).ladder.map((c) => ({ name: cardinal(c), influence: influence.get(c) ?? 0, antipope: view.antipope === c, mine: mine.has(c), pope: final?.pope === c }));
  return h(
    "section",
    { class: "ladder", "aria-label": t(final ? "borgia.final-ladder-label" : "borgia.ladder-label") },
    h("h2", {}, t(final ? "borgia.final-ladder" : "borgia.ladder")),
    ladderPicture(mats),
    view.centreRumors.length ? h("p", { class: "small" }, t("borgia.centre-rumors", view.centreRumors.map(cardinal).join(", "))) : null,
  );
}

function seatsPanel(view: View, ctx: Ctx): HTMLElement {
  const now = deciding(view);
  const won = (seat: number) => view.result?.winners.includes(seat) ?? false;
  return h(
    "section",
    { class: "seats", "aria-label": t("rows.seats") },
    view.seats.map((seat) => {
      // A new round rolls every seat's dice, behind the screens too; a call reveals them.
      const rolled = changed(`dice:${seat.seat}`, `${view.roundNumber}|${seat.diceHidden ? seat.diceCount : seat.dice.join(",")}`);
      return h(
        "div",
        {
          class: `seat-card${seat.seat === ctx.me ? " me" : ""}${seat.diceCount === 0 ? " out" : ""}${markClasses(seat.seat === now, won(seat.seat))}`,
          "data-seat": String(seat.seat),
          "data-testid": `seat-${seat.seat}`,
        },
        h(
          "div",
          { class: "seat-head" },
          ctx.seats.tag(seat.seat),
          markBadge(seat.seat === now, won(seat.seat)),
          h("span", { class: "small" }, tn("borgia.dice", seat.diceCount)),
        ),
        h(
          "div",
          { class: "seat-dice", "data-testid": `dice-${seat.seat}` },
          seat.diceHidden ? hiddenDice(seat.diceCount, rolled) : dice(seat.dice, rolled),
        ),
        seat.rumors.length ? h("div", { class: "small" }, t("borgia.rumors", seat.rumors.map(cardinal).join(", "))) : null,
        !seat.puppetsHidden && seat.puppets.length
          ? h("div", { class: "small" }, t("borgia.puppet", seat.puppets.map(cardinal).join(", ")))
          : null,
        seat.performed.length
          ? h("div", { class: "small muted" }, t("borgia.performed", seat.performed.slice(-2).map(performedText).join("; ")))
          : null,
      );
    }),
  );
}

/** Each cardinal's final influence (after the dice bonus and penalties). */
function finalInfluence(result: FinalResult): Map<Cardinal, number> {
  return new Map(result.influence.map((item) => [item.cardinal, item.influence]));
}

/** Why the pope is pope when others have as much influence: B9, ties go to the cardinal
 * higher on the ladder. Undefined when the pope has the most alone. */
export function tieText(result: FinalResult): string | undefined {
  if (result.pope === Cardinal.UNSPECIFIED) return undefined;
  const influence = finalInfluence(result);
  const most = influence.get(result.pope) ?? 0;
  const tied = result.ladder.filter((c) => (influence.get(c) ?? 0) === most);
  if (tied.length < 2) return undefined;
  return t("borgia.tie", listed(tied.map(cardinal)), most, cardinal(result.pope));
}

/** A seat's final line: its score (its puppets' final influence) and the dice bonus in it. */
function scoreText(result: FinalResult, seat: number, puppets: Cardinal[]): string {
  if (result.eliminatedSeats.includes(seat)) return t("borgia.eliminated");
  const bonus = result.bonuses.filter((b) => puppets.includes(b.cardinal)).reduce((sum, b) => sum + b.delta, 0);
  const dice = result.diceCounts[seat] ?? 0;
  const from = bonus ? tn("borgia.bonus", dice, `${bonus > 0 ? "+" : ""}${bonus}`) : dice ? "" : t("borgia.no-bonus");
  return t("borgia.final-influence", result.scores[seat] ?? 0, from);
}

function ending(view: View, ctx: Ctx): HTMLElement | undefined {
  const result: FinalResult | undefined = view.result;
  if (!result) return undefined;
  const tie = tieText(result);
  const rows: (HTMLElement | null)[] = [
    result.pope === Cardinal.UNSPECIFIED ? h("p", {}, t("borgia.no-pope")) : null,
    tie ? h("p", { class: "tie", "data-testid": "tie-rule" }, tie) : null,
    h(
      "ul",
      { class: "plain" },
      result.puppets.map((p) =>
        h(
          "li",
          {},
          ctx.seats.tag(p.seat),
          t("borgia.held", p.puppets.length ? listed(p.puppets.map(cardinal)) : t("borgia.no-puppet")),
          scoreText(result, p.seat, p.puppets),
        ),
      ),
    ),
    // Bonuses, penalties, eliminations and cardinals leaving the ladder are in the game's
    // own sentence above (the why); the list and the final ladder sum them up.
    h("p", { class: "small" }, t("borgia.final-line", result.ladder.map((c) => `${cardinal(c)} ${finalInfluence(result).get(c) ?? 0}`).join(" · "))),
  ];
  return h("div", {}, rows);
}

export const borgia: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    beginDrawing(ctx.table.tableId);
    const me = view.seats.find((seat) => seat.seat === ctx.me);
    const mine = new Set(me?.puppets ?? []);
    return h(
      "section",
      { class: "board borgia", "aria-label": t("table.title") },
      status(view, ctx),
      me
        ? h(
            "div",
            { class: "mine-panel", "data-testid": "my-secrets" },
            h("span", {}, t("borgia.your-puppet"), h("strong", {}, me.puppets.map(cardinal).join(", ") || "—")),
            h("span", {}, t("borgia.your-dice"), me.dice.length ? namedDice(me.dice, changed("my-dice", `${view.roundNumber}|${me.dice.join(",")}`)) : t("borgia.none-left")),
          )
        : null,
      h("div", { class: "board-cols" }, ladder(view, mine), seatsPanel(view, ctx)),
    );
  },
  ending: (message, ctx) => ending(message as View, ctx),
  // The moves in the page's language, worded from the typed action as the game's catalog
  // words its label (in English, the label itself).
  actionPath(message: Message, _label: string, ctx: Ctx): string[] | undefined {
    const action = message as Action;
    const kindCase = action.kind;
    switch (kindCase.case) {
      case "bid":
        return [t("borgia.menu.bid", kindCase.value.count), `${bidText(kindCase.value)}`];
      case "call":
        return [t("borgia.menu.call")];
      case "allow":
        return [t("borgia.menu.allow")];
      // Each step begins with the words of the one before, which a submenu leaves out
      // (table.ts under): "Bribe: Medici …" opens "to the top" and "to the bottom".
      case "bribe": {
        const named = cardinal(kindCase.value.cardinal);
        return [t("borgia.menu.bribe", named), t(kindCase.value.direction === Direction.TOP ? "borgia.bribe.top" : "borgia.bribe.bottom", named)];
      }
      case "poison": {
        const { first, second } = kindCase.value;
        if (first === second) return [t("borgia.poison.two", cardinal(first))];
        return [t("borgia.menu.poison", cardinal(first)), t("borgia.poison.each", cardinal(first), cardinal(second))];
      }
      case "judgementPair": {
        const { source, target } = kindCase.value;
        return [t("borgia.menu.judgement-pair"), t("borgia.menu.judgement-pair-from", cardinal(source)), t("borgia.judgement.pair", cardinal(source), cardinal(target))];
      }
      case "judgementSplit": {
        const [a, b, c, d] = [kindCase.value.sourceA, kindCase.value.sourceB, kindCase.value.targetA, kindCase.value.targetB].map(cardinal);
        return [t("borgia.menu.judgement-split"), t("borgia.menu.judgement-split-from", a, b), t("borgia.judgement.split", a, b, c, d)];
      }
      case "rumor": {
        const { card, targetSeat, returned } = kindCase.value;
        const leaf = returned !== Cardinal.UNSPECIFIED
          ? t("borgia.rumor.returned", cardinal(card), seatWord(targetSeat, ctx), cardinal(returned))
          : t("borgia.rumor.front", cardinal(card), seatWord(targetSeat, ctx));
        return [t("borgia.menu.rumor", cardinal(card)), leaf];
      }
      case "accuse":
        return [t("borgia.accuse", cardinal(kindCase.value.cardinal))];
      case "performNothing":
        return [t("borgia.nothing")];
      default:
        return undefined;
    }
  },
};
