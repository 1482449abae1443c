// The table page's head, and the names of a game and a table's status it shows.
import { listGames } from "./catalog";
import { seatClock } from "./clocks";
import { h } from "./dom";
import { t, tn, type Key } from "./i18n";
import { SeatKind, TableStatus, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import type { Seats } from "./names";
import { hex } from "./verify";

/** The page's head: the game, its status, the trust lines (replay mode, the seed's commitment),
 *  the seats with whose turn it is and their clocks. ``me``: this page's seat, if it plays one. */
export function tableHeader(table: Table, seats: Seats, me: number | undefined, countdown: HTMLElement): HTMLElement {
  const started = table.status !== TableStatus.OPEN;
  return h(
    "header",
    { class: "table-head" },
    h(
      "div",
      { class: "title-row" },
      h("a", { href: "#/", class: "back", "aria-label": t("table.back") }, t("table.back-short")),
      h("h1", {}, gameName(table.gameId)),
      h("span", { class: `badge status-${TableStatus[table.status].toLowerCase()}` }, statusText(table.status)),
      table.rated ? h("span", { class: "badge", "data-testid": "rated", title: t("table.rated-title") }, t("rows.rated")) : null,
      me !== undefined ? null : h("span", { class: "badge", "data-testid": "spectator" }, t("table.watching")),
      countdown,
    ),
    table.replayMode
      ? h(
          "p",
          { class: "trust warn", "data-testid": "replay-warning" },
          t("table.replay-warning"),
        )
      : null,
    started && table.seedCommitment.length
      ? h(
          "p",
          { class: "trust small", "data-testid": "commitment" },
          t("table.commitment"),
          // Whole, wrapping where it must: a phone has no hover to show the rest.
          h("code", { class: "hash" }, hex(table.seedCommitment)),
        )
      : null,
    h(
      "ul",
      { class: "seat-strip", "aria-label": t("rows.seats") },
      table.seats.map((seat) =>
        h(
          "li",
          { class: `${table.decidingSeats.includes(seat.seat) ? "deciding" : ""}${seat.seat === me ? " me" : ""}` },
          seats.tag(seat.seat),
          seats.rating(seat.seat),
          table.decidingSeats.includes(seat.seat) ? h("span", { class: "turn-mark", title: t("table.deciding-now") }, t("table.to-decide")) : null,
          seatClock(table, seat.seat),
        ),
      ),
    ),
  );
}

const gameNames = new Map<string, string>();
void listGames().then((games) => games.forEach((game) => gameNames.set(game.gameId, game.displayName)));

function gameName(gameId: string): string {
  return gameNames.get(gameId) ?? gameId;
}

function statusText(status: TableStatus): string {
  const keys: Partial<Record<TableStatus, Key>> = { [TableStatus.OPEN]: "table.status-open", [TableStatus.IN_PROGRESS]: "table.status-playing", [TableStatus.FINISHED]: "table.status-finished" };
  const key = keys[status];
  return key ? t(key) : "";
}

/** What an open table waits for, in words. A table of bots only is begun by a bot worker
 *  when one has room for it; a full table of people, by its host (or auto start). */
export function waitingFor(table: Table, free: number): string {
  if (free) return tn("table.waiting-players", free);
  if (table.seats.every((s) => s.kind === SeatKind.BOT)) return t("table.all-bots");
  return t("table.waiting-host");
}
