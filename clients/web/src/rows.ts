// A row of the lobby's lists (ListTables): enough to choose a table by. Its game, who sits
// there with their ratings (bots by name and level), its options in words, its decision
// timer, how long ago it was opened, and its free seats.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { h, phrase } from "./dom";
import { t, tn } from "./i18n";
import { agoText, dateTimeText } from "./format";
import { SeatKind, type BotDescription, type Seat, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { OptionKind, type GameDescription } from "./gen/tavola/rules/v1/rules_pb";
import { botDisplayName, level, levelText } from "./names";
import { ratingText } from "./ratings";

/** The options that differ from the game's defaults, in words; "standard rules" for none. */
export function optionsText(table: Table, game: GameDescription | undefined): string {
  const changed = (game?.options ?? []).flatMap((option) => {
    const value = table.options[option.name];
    if (value === undefined || value === option.defaultValue) return [];
    const name = option.label || phrase(option.name);
    if (option.kind === OptionKind.BOOL) return [value === "true" ? name : t("rows.no-option", name.toLowerCase())];
    return [`${name} ${option.kind === OptionKind.ENUM ? phrase(value).toLowerCase() : value}`];
  });
  return changed.length ? changed.join(", ") : t("rows.standard");
}

/** "2 min a decision", "45 s a decision", "no time limit". */
export function timerText(table: Table): string {
  const seconds = table.decisionTimer?.seconds ?? 0;
  if (!seconds) return t("rows.no-limit");
  return seconds % 60 === 0 ? t("rows.minutes", seconds / 60) : t("rows.seconds", seconds);
}

function seatItem(seat: Seat, bots: Map<string, BotDescription>): HTMLElement {
  const rating = seat.rating
    ? h(
        "span",
        { class: "rating", title: tn("rows.rating-title", seat.rating.games) },
        ` ${ratingText(seat.rating)}`,
        seat.rating.provisional ? h("span", { class: "badge" }, t("rows.provisional")) : null,
      )
    : null;
  if (seat.kind === SeatKind.BOT) {
    const bot = bots.get(seat.bot.split(":")[0]);
    const strength = bot ? level(bot.strength) : "";
    return h(
      "li",
      { class: "seat-item bot", title: t("rows.bot", seat.bot) },
      h("span", { class: "who" }, botDisplayName(seat.bot), h("span", { class: "level" }, strength && strength !== "random" ? t("rows.bot-level", levelText(strength)) : t("rows.bot-plain"))),
      rating,
    );
  }
  if (!seat.taken) return h("li", { class: "seat-item free" }, h("span", { class: "muted" }, t("rows.free-seat")));
  return h("li", { class: "seat-item" }, h("span", { class: "who" }, seat.displayName || t("rows.a-player")), rating ?? h("span", { class: "small muted" }, seat.playerId ? t("rows.unrated") : t("rows.guest")));
}

export interface RowContext {
  games: Map<string, GameDescription>;
  bots: Map<string, BotDescription>;
  now: number;
}

/** The row's description: its title line, its seats, and its details line. */
export function tableSummary(table: Table, joinable: boolean, ctx: RowContext): HTMLElement[] {
  const game = ctx.games.get(table.gameId);
  const humans = table.seats.filter((s) => s.kind === SeatKind.HUMAN);
  const free = humans.filter((s) => !s.taken).length;
  const created = table.createTime ? timestampMs(table.createTime) : undefined;
  const age =
    created !== undefined
      ? h("time", { datetime: new Date(created).toISOString(), title: dateTimeText(created) }, t("rows.created", agoText(created, ctx.now)))
      : null;
  const details: (HTMLElement | string)[] = [
    tn("players", table.playerCount),
    optionsText(table, game),
    timerText(table),
    ...(age ? [age] : []),
    // An open table of bots only waits for a bot worker to begin it.
    ...(joinable ? [humans.length ? tn("rows.free", free) : t("rows.about-to-begin")] : []),
  ];
  return [
    h(
      "span",
      { class: "row-title" },
      h("strong", {}, game?.displayName ?? table.gameId),
      table.rated ? h("span", { class: "badge", title: t("rows.rated-title") }, t("rows.rated")) : null,
      table.replayMode ? h("span", { class: "badge warn", title: t("rows.replay-title") }, t("rows.replay")) : null,
    ),
    h("ul", { class: "seat-list", "aria-label": t("rows.seats") }, table.seats.map((seat) => seatItem(seat, ctx.bots))),
    h("span", { class: "small row-details" }, details.flatMap((part, i) => (i ? [" · ", part] : [part]))),
  ];
}
