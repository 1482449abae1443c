// Il Trono di Mortadella: each seat's tokens (People, Tower, Book, Mortadella), its role
// (yours, or a face-up one, or all at the end), the dice of the turn, the Lombard token.
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import { EndReason, Phase, Role, Symbol as Sym, type View } from "../gen/tavola/mortadella/v1/mortadella_pb";
import type { Ctx, GameRenderer } from "./api";

const role = (value: Role) => words(Role[value]);
const symbol = (value: Sym) => words(Sym[value]);

function dice(label: string, faces: Sym[], testid?: string): HTMLElement | null {
  if (!faces.length) return null;
  return h(
    "p",
    { "data-testid": testid },
    `${label}: `,
    h(
      "span",
      { class: "dice" },
      faces.map((value) => h("span", { class: `die sym-${Sym[value].toLowerCase()}` }, symbol(value))),
    ),
  );
}

export const mortadella: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    const me = view.seats.find((seat) => seat.seat === ctx.me);
    const over = view.phase === Phase.OVER;
    return h(
      "section",
      { class: "board mortadella", "aria-label": "Table" },
      h(
        "div",
        { class: "status" },
        h(
          "p",
          {},
          h("strong", {}, over ? "The game is over." : `Turn ${view.turn} of ${view.maxTurns}`),
          over ? null : [" · ", ctx.seats.tag(view.activeSeat), " plays", view.phase ? ` (${words(Phase[view.phase])})` : ""],
        ),
        view.lombardHolder !== undefined
          ? h("p", { class: "small" }, "Lombard token: ", ctx.seats.tag(view.lombardHolder), view.lombardUsed ? " (used this turn)" : "")
          : null,
        dice("Dice rolled", view.dice, "turn-dice"),
        dice("Passed on", view.passedDice),
        dice("Chosen", view.chosenDice),
        dice("Not chosen", view.unchosenDice),
        dice("Left to resolve", view.remainingDice),
        view.target !== undefined ? h("p", { class: "small" }, "Target: ", ctx.seats.tag(view.target)) : null,
      ),
      me
        ? h(
            "div",
            { class: "mine-panel", "data-testid": "my-secrets" },
            "Your role: ",
            h("strong", {}, me.role ? role(me.role) : "—"),
            me.removedRoles.length ? ` · your removed cards: ${me.removedRoles.map(role).join(", ")}` : "",
          )
        : null,
      h(
        "section",
        { class: "seats", "aria-label": "Seats" },
        view.seats.map((seat) =>
          h(
            "div",
            {
              class: `seat-card${seat.seat === ctx.me ? " me" : ""}${seat.inGame ? "" : " out"}`,
              "data-testid": `seat-${seat.seat}`,
            },
            h(
              "div",
              { class: "seat-head" },
              ctx.seats.tag(seat.seat),
              h("span", { class: "small", "data-testid": `role-${seat.seat}` }, seat.role ? role(seat.role) : "role hidden"),
            ),
            h(
              "div",
              { class: "tokens" },
              ["people", "tower", "book", "mortadella"].map((name) =>
                h(
                  "span",
                  { class: `token tok-${name}`, title: name },
                  `${words(name)} ${seat.tokens?.[name as "people"] ?? 0}`,
                ),
              ),
            ),
            h(
              "div",
              { class: "small muted" },
              [
                seat.inGame ? "" : "out of the game",
                seat.skipTurn ? "skips next turn" : "",
                seat.removedRoleCount ? `${seat.removedRoleCount} role(s) removed` : "",
              ]
                .filter(Boolean)
                .join(" · "),
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
      h("p", {}, `Why: ${view.endReason ? words(EndReason[view.endReason]) : "the game ended"}.`),
      h(
        "ul",
        { class: "plain" },
        view.seats.map((seat) =>
          h(
            "li",
            {},
            ctx.seats.tag(seat.seat),
            ` was the ${seat.role ? role(seat.role) : "?"}`,
            seat.removedRoles.length ? ` (earlier: ${seat.removedRoles.map(role).join(", ")})` : "",
            seat.inGame ? "" : " — eliminated",
          ),
        ),
      ),
    );
  },
};
