// House of Borgia: the ladder of cardinals with their influence, the bid, every seat's
// dice (your own faces, the others' as counts until a call reveals them), rumors, what
// each seat performed, and at the end the puppets, bonuses and eliminations.
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
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
const face = (value: Face) => words(Face[value]);
const kind = (value: ActionKind) => words(ActionKind[value]);
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
    { class: `dice${rolled ? " rolled" : ""}`, title: "hidden from you" },
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
      return `Bribe: ${cardinal(kindCase.value.cardinal)} to the ${kindCase.value.direction === Direction.TOP ? "top" : "bottom"}`;
    case "poison":
      return kindCase.value.first === kindCase.value.second
        ? `Poison: 2 from ${cardinal(kindCase.value.first)}`
        : `Poison: ${cardinal(kindCase.value.first)} and ${cardinal(kindCase.value.second)}`;
    case "judgementPair":
      return `Judgement: ${cardinal(kindCase.value.source)} → ${cardinal(kindCase.value.target)}`;
    case "judgementSplit":
      return `Judgement: ${cardinal(kindCase.value.sourceA)}, ${cardinal(kindCase.value.sourceB)} → ${cardinal(kindCase.value.targetA)}, ${cardinal(kindCase.value.targetB)}`;
    case "accuse":
      return `Accusation: ${cardinal(kindCase.value.cardinal)}`;
    case "rumor":
      return `Rumor: ${cardinal(kindCase.value.card)}`;
    case "performNothing":
      return "nothing (no legal target)";
    default:
      return "";
  }
}

function status(view: View, ctx: Ctx): HTMLElement {
  if (view.phase === Phase.OVER) return h("p", { class: "status" }, "The game is over.");
  const total = view.seats.reduce((sum, seat) => sum + seat.diceCount, 0);
  const standing = bidder(view);
  const lines: (HTMLElement | string)[] = [h("strong", {}, `Round ${view.roundNumber}`), ` · ${total} dice on the table · `];
  if (view.bid) {
    // The bid as a picture too: its count beside its face; a new bid pops in.
    const fresh = changed("bid", `${bidText(view.bid)}|${standing}`);
    const shown = Face[ActionKind[view.bid.action] as keyof typeof Face] ?? Face.UNSPECIFIED; // the same names
    lines.push(
      "Bid: ",
      h(
        "strong",
        { class: `bid${fresh ? " pop" : ""}`, "data-testid": "standing-bid" },
        shown !== Face.UNSPECIFIED ? faceDie(shown, false, 24) : null,
        bidText(view.bid),
      ),
    );
    if (standing !== undefined) lines.push(" by ", ctx.seats.tag(standing));
  } else {
    lines.push("no bid yet");
  }
  let next: (HTMLElement | string)[] = [];
  if (view.phase === Phase.RESPOND && view.responderSeat !== undefined) {
    next = [ctx.seats.tag(view.responderSeat), " must call or allow."];
  } else if (view.phase === Phase.PERFORM) {
    next = [ctx.seats.tag(view.activeSeat), " performs the bid action."];
  } else if (view.phase === Phase.BID) {
    next = [ctx.seats.tag(view.activeSeat), " bids."];
  }
  return h(
    "div",
    { class: "status" },
    h("p", {}, lines),
    h("p", {}, next),
    view.called ? h("p", { class: "alert-text" }, "The bid was called: every die is revealed.") : null,
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
    { class: "ladder", "aria-label": final ? "Final ladder, top first" : "Ladder, top first" },
    h("h2", {}, final ? "Final ladder (after the dice bonus)" : "Ladder (top first)"),
    ladderPicture(mats),
    view.centreRumors.length ? h("p", { class: "small" }, `Rumors in the centre: ${view.centreRumors.map(cardinal).join(", ")}`) : null,
  );
}

function seatsPanel(view: View, ctx: Ctx): HTMLElement {
  const now = deciding(view);
  const won = (seat: number) => view.result?.winners.includes(seat) ?? false;
  return h(
    "section",
    { class: "seats", "aria-label": "Seats" },
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
          h("span", { class: "small" }, `${seat.diceCount} ${seat.diceCount === 1 ? "die" : "dice"}`),
        ),
        h(
          "div",
          { class: "seat-dice", "data-testid": `dice-${seat.seat}` },
          seat.diceHidden ? hiddenDice(seat.diceCount, rolled) : dice(seat.dice, rolled),
        ),
        seat.rumors.length ? h("div", { class: "small" }, `Rumors: ${seat.rumors.map(cardinal).join(", ")}`) : null,
        !seat.puppetsHidden && seat.puppets.length
          ? h("div", { class: "small" }, `Puppet: ${seat.puppets.map(cardinal).join(", ")}`)
          : null,
        seat.performed.length
          ? h("div", { class: "small muted" }, `Performed: ${seat.performed.slice(-2).map(performedText).join("; ")}`)
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
  const names = tied.map(cardinal);
  const listed = `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  return `${listed} are tied with ${most} influence. A tie goes to the cardinal higher on the ladder (rule B9), so ${cardinal(result.pope)}, highest of them, is pope.`;
}

/** A seat's final line: its score (its puppets' final influence) and the dice bonus in it. */
function scoreText(result: FinalResult, seat: number, puppets: Cardinal[]): string {
  if (result.eliminatedSeats.includes(seat)) return " — eliminated (a rumor in front of them named their puppet)";
  const bonus = result.bonuses.filter((b) => puppets.includes(b.cardinal)).reduce((sum, b) => sum + b.delta, 0);
  const dice = result.diceCounts[seat] ?? 0;
  const from = bonus ? ` (${bonus > 0 ? "+" : ""}${bonus} from ${dice} ${dice === 1 ? "die" : "dice"} left)` : dice ? "" : " (no dice left: no bonus)";
  return ` — final influence ${result.scores[seat] ?? 0}${from}`;
}

function ending(view: View, ctx: Ctx): HTMLElement | undefined {
  const result: FinalResult | undefined = view.result;
  if (!result) return undefined;
  const tie = tieText(result);
  const rows: (HTMLElement | null)[] = [
    result.pope === Cardinal.UNSPECIFIED ? h("p", {}, "No cardinal is left to be pope, so nobody wins.") : null,
    tie ? h("p", { class: "tie", "data-testid": "tie-rule" }, tie) : null,
    h(
      "ul",
      { class: "plain" },
      result.puppets.map((p) =>
        h(
          "li",
          {},
          ctx.seats.tag(p.seat),
          ` held ${p.puppets.map(cardinal).join(" and ") || "no puppet"}`,
          scoreText(result, p.seat, p.puppets),
        ),
      ),
    ),
    // Bonuses, penalties, eliminations and cardinals leaving the ladder are in the game's
    // own sentence above (the why); the list and the final ladder sum them up.
    h("p", { class: "small" }, `Final ladder, after the dice bonus: ${result.ladder.map((c) => `${cardinal(c)} ${finalInfluence(result).get(c) ?? 0}`).join(" · ")}`),
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
      { class: "board borgia", "aria-label": "Table" },
      status(view, ctx),
      me
        ? h(
            "div",
            { class: "mine-panel", "data-testid": "my-secrets" },
            h("span", {}, "Your puppet: ", h("strong", {}, me.puppets.map(cardinal).join(", ") || "—")),
            h("span", {}, " · Your dice: ", me.dice.length ? namedDice(me.dice, changed("my-dice", `${view.roundNumber}|${me.dice.join(",")}`)) : "none left"),
          )
        : null,
      h("div", { class: "board-cols" }, ladder(view, mine), seatsPanel(view, ctx)),
    );
  },
  ending: (message, ctx) => ending(message as View, ctx),
  actionPath(message: Message, label: string, ctx: Ctx): string[] | undefined {
    const action = message as Action;
    const kindCase = action.kind;
    switch (kindCase.case) {
      case "bid":
        return [`Bid ${kindCase.value.count} …`, `${bidText(kindCase.value)}`];
      case "call":
        return ["Call: the bid is a bluff"];
      case "allow":
        return ["Allow the bid"];
      // Each step begins with the words of the one before, which a submenu leaves out
      // (table.ts under): "Bribe: Medici …" opens "to the top" and "to the bottom".
      case "bribe":
        return [`Bribe: ${cardinal(kindCase.value.cardinal)} …`, ctx.seats.text(label)];
      case "poison": {
        const { first, second } = kindCase.value;
        return first === second ? [ctx.seats.text(label)] : [`Poison: 1 from ${cardinal(first)} and …`, ctx.seats.text(label)];
      }
      case "judgementPair":
        return ["Judgement: 2 from …", `Judgement: 2 from ${cardinal(kindCase.value.source)} …`, ctx.seats.text(label)];
      case "judgementSplit":
        return [
          "Judgement: 1 each from …",
          `Judgement: 1 each from ${cardinal(kindCase.value.sourceA)} and ${cardinal(kindCase.value.sourceB)} …`,
          ctx.seats.text(label),
        ];
      case "rumor":
        return [`Rumor: ${cardinal(kindCase.value.card)} …`, ctx.seats.text(label)];
      default:
        return undefined;
    }
  },
};
