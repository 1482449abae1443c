// Il Trono di Mortadella: each seat's tokens (People, Tower, Book, Mortadella), its role
// (yours, or a face-up one, or all at the end), the dice of the turn, the Lombard token.
import type { Message } from "@bufbuild/protobuf";
import { h, words } from "../dom";
import { language, t, tOr, tn } from "../i18n";
import { Effect, EffectSchema, EndReason, Phase, Role, RoleSchema, Symbol as Sym, type View } from "../gen/tavola/mortadella/v1/mortadella_pb";
import { die } from "../pictures/dice";
import { MORTADELLA_GLYPHS } from "../pictures/glyphs";
import { beginDrawing, changed } from "../pictures/motion";
import { lombardToken, tokenPicture } from "../pictures/tokens";
import { roleGoal, termHelp } from "../help";
import type { Ctx, GameRenderer } from "./api";
import { markBadge, markClasses } from "./marks";

// The phases an effect waits in (a target, a cancel, a discard): its help is shown beside them.
const EFFECT_PHASES = [Phase.TARGET, Phase.REVOLUTION_TARGET, Phase.CANCEL, Phase.PLAGUE];

// The role cards as the rulebook names them.
const enumKey = (prefix: string, name: string) => `${prefix}.${name.toLowerCase().replace(/_/g, "-")}`;
const role = (value: Role) => tOr(enumKey("mortadella.role", Role[value]), words(Role[value]));

// Who decides now and what about, by phase.
/** The rule that decided the end; at a victory row met by several at once (the view's
 * rowsMet, in turn order from the active player), the one that broke the tie (M15). */
function endRule(view: View, ctx: Ctx): string {
  if (view.endReason === EndReason.VICTORY_ROW && view.rowsMet.length > 1) {
    const names = view.rowsMet.map((seat) => ctx.seats.name(seat));
    return t("mortadella.rows-at-once", new Intl.ListFormat(language(), { type: "conjunction" }).format(names), names[0]);
  }
  return tOr(enumKey("mortadella.end", EndReason[view.endReason]), END_RULES[view.endReason] ?? "");
}

// The rule that decided each kind of end (RULINGS.md).
const END_RULES: Partial<Record<EndReason, string>> = {
  [EndReason.VICTORY_ROW]: "A victory row was met, on the winner's own turn or after an effect (rules M14, M15).",
  [EndReason.LAST_STANDING]: "Everyone else was out of the game: the last player left wins (rule M15).",
  [EndReason.MASTER_GUESS]: "The Master met his row and named another player's role right: he wins (rule M16).",
  [EndReason.TWO_PLAYER_GUESS]: "With two players, guessing the opponent's role right wins (rule M19).",
  [EndReason.TURN_LIMIT]: "The table's turn limit was reached: nobody wins (rule M21).",
  [EndReason.ALL_ELIMINATED]: "Every player was eliminated at once: nobody wins.",
};

const PHASES: Partial<Record<Phase, string>> = {
  [Phase.SETUP_TOKEN]: "choose a starting token",
  [Phase.PRE_ROLL]: "roll",
  [Phase.LOMBARD]: "the Lombard token's holder may re-roll",
  [Phase.CHOOSE_DICE]: "choose three dice",
  [Phase.RESOLVE]: "resolve the chosen dice",
  [Phase.TARGET]: "choose a target",
  [Phase.REVOLUTION_TARGET]: "choose the Revolution's target",
  [Phase.CANCEL]: "the target may pay Mortadella to cancel",
  [Phase.PLAGUE]: "discard for the Plague",
  [Phase.STEAL]: "choose whom to steal from",
  [Phase.MASTER_GUESS]: "the Master guesses a role",
};
const symbol = (value: Sym) => tOr(enumKey("mortadella.symbol", Sym[value]), words(Sym[value]));

/** A row of the turn's dice; `rolled`: they tumble in (a roll or a re-roll just made them). */
function dice(label: string, faces: Sym[], testid?: string, rolled = false): HTMLElement | null {
  if (!faces.length) return null;
  return h(
    "div",
    { class: "dice-row", "data-testid": testid },
    h("span", { class: "dice-label" }, `${label}:`),
    h(
      "span",
      { class: "dice named" },
      faces.map((value) => {
        const key = Sym[value].toLowerCase();
        // Each die with its symbol in words under it: the legend of the tokens' symbols too.
        return h(
          "span",
          { class: "named-die" },
          die({ face: key, glyph: MORTADELLA_GLYPHS[key] ?? (() => null), label: symbol(value), className: `sym-${key}`, rolled, size: 38 }),
          h("span", { class: "die-word", "aria-hidden": "true" }, symbol(value)),
        );
      }),
    ),
  );
}

/** Who decides now: the target when it may cancel, else the seat whose turn it is. */
function deciding(view: View): number | undefined {
  if (view.phase === Phase.OVER) return undefined;
  if (view.phase === Phase.CANCEL && view.target !== undefined) return view.target;
  return view.activeSeat;
}

export const mortadella: GameRenderer = {
  board(message: Message, ctx: Ctx): HTMLElement {
    const view = message as View;
    beginDrawing(ctx.table.tableId);
    const me = view.seats.find((seat) => seat.seat === ctx.me);
    const over = view.phase === Phase.OVER;
    const now = deciding(view);
    const rolled = changed("turn-dice", `${view.turn}|${view.activeSeat}|${view.dice.join(",")}`);
    return h(
      "section",
      { class: "board mortadella", "aria-label": t("table.title") },
      h(
        "div",
        { class: "status" },
        h(
          "p",
          {},
          h("strong", {}, over ? t("borgia.over") : t("mortadella.turn-of", view.turn, view.maxTurns)),
          over ? null : [" · ", ctx.seats.tag(view.activeSeat), t("mortadella.plays"), view.phase ? t("mortadella.now", tOr(enumKey("mortadella.phase", Phase[view.phase]), PHASES[view.phase] ?? words(Phase[view.phase]))) : ""],
          // The effect a target or a cancel is for ("Drunkenness"), as the history names it.
          !over && view.effect && (view.phase === Phase.TARGET || view.phase === Phase.CANCEL) ? ` (${tOr(enumKey("mortadella.effect", Effect[view.effect]), words(Effect[view.effect]))})` : "",
        ),
        view.lombardHolder !== undefined && !over
          ? h("p", { class: "small lombard-line" }, lombardToken(view.lombardUsed), t("mortadella.lombard"), ctx.seats.tag(view.lombardHolder), view.lombardUsed ? t("mortadella.lombard-used") : "")
          : null,
        // The turn's dice while it is played; once the game is over they are the last turn's.
        over ? null : dice(t("mortadella.rolled"), view.dice, "turn-dice", rolled),
        over ? null : dice(t("mortadella.passed"), view.passedDice),
        over ? null : dice(t("mortadella.chosen"), view.chosenDice),
        over ? null : dice(t("mortadella.not-chosen"), view.unchosenDice),
        over ? null : dice(t("mortadella.left"), view.remainingDice),
        view.target !== undefined ? h("p", { class: "small" }, t("mortadella.target"), ctx.seats.tag(view.target)) : null,
        !over && view.effect && EFFECT_PHASES.includes(view.phase) ? h("p", { class: "small", "data-testid": "effect-help" }, termHelp(ctx.table.gameId, "effect", EffectSchema, view.effect) ?? "") : null,
      ),
      me
        ? h(
            "div",
            { class: "mine-panel", "data-testid": "my-secrets" },
            t("mortadella.your-role"),
            h("strong", {}, me.role ? role(me.role) : "—"),
            me.removedRoles.length ? t("mortadella.your-removed", me.removedRoles.map(role).join(", ")) : "",
            me.role && roleGoal(ctx.table.gameId, RoleSchema, me.role) ? h("p", { class: "goal", "data-testid": "my-goal" }, t("mortadella.your-goal"), roleGoal(ctx.table.gameId, RoleSchema, me.role)) : null,
          )
        : null,
      h(
        "section",
        { class: "seats", "aria-label": t("rows.seats") },
        view.seats.map((seat) =>
          h(
            "div",
            {
              class: `seat-card${seat.seat === ctx.me ? " me" : ""}${seat.inGame ? "" : " out"}${markClasses(seat.seat === now, view.winners.includes(seat.seat))}`,
              "data-testid": `seat-${seat.seat}`,
            },
            h(
              "div",
              { class: "seat-head" },
              ctx.seats.tag(seat.seat),
              markBadge(seat.seat === now, view.winners.includes(seat.seat)),
              h("span", { class: `small role-card${seat.role ? "" : " hidden"}`, "data-testid": `role-${seat.seat}` }, seat.role ? role(seat.role) : t("mortadella.role-hidden")),
            ),
            h(
              "div",
              { class: "tokens" },
              (["people", "tower", "book", "mortadella"] as const).map((name) => {
                const count = seat.tokens?.[name] ?? 0;
                return tokenPicture(name, tOr(`mortadella.symbol.${name}`, words(name)), count, changed(`tokens:${seat.seat}:${name}`, String(count)));
              }),
            ),
            h(
              "div",
              { class: "small muted" },
              [
                seat.inGame ? "" : t("mortadella.out"),
                seat.skipTurn ? t("mortadella.skips") : "",
                seat.removedRoleCount ? tn("mortadella.removed", seat.removedRoleCount) : "",
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
    const rule = endRule(view, ctx);
    return h(
      "div",
      {},
      h(
        "ul",
        { class: "plain" },
        view.seats.map((seat) =>
          h(
            "li",
            {},
            ctx.seats.tag(seat.seat),
            t("mortadella.was", seat.role ? role(seat.role) : "?"),
            seat.removedRoles.length ? t("mortadella.earlier", seat.removedRoles.map(role).join(", ")) : "",
            seat.inGame ? "" : t("mortadella.eliminated"),
          ),
        ),
      ),
      rule ? h("p", { class: "tie", "data-testid": "end-rule" }, rule) : null,
    );
  },
};
