// A game's leaderboard (PlayerService.ListLeaderboard: the top, or the page around the
// player this browser plays as) and a player's public page (GetPlayer: ratings per game,
// recent rated tables with links to them).
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, codeOf, failure, players } from "./api";
import { listGames } from "./catalog";
import { fill, h } from "./dom";
import type { LeaderboardEntry } from "./gen/tavola/gateway/v1/players_pb";
import type { GameDescription } from "./gen/tavola/rules/v1/rules_pb";
import { dateText, dateTimeText, signedWhole, whole } from "./format";
import { ordinal, ratingText } from "./ratings";
import { socialButtons } from "./social";
import { playerKey } from "./storage";
import { language, t as tr } from "./i18n";

const PAGE = 20;

/** A moment as text, with its machine-readable date beside it. */
function timeOf(ms: number, text: string): HTMLElement {
  return h("time", { datetime: new Date(ms).toISOString() }, text);
}

function playerLink(playerId: string, name: string): HTMLElement {
  return h("a", { class: "name", href: `#/player/${encodeURIComponent(playerId)}`, title: name || playerId }, name || playerId);
}

/** Whether the player has a rating at the game, which puts them on its board. */
async function rated(playerId: string, gameId: string): Promise<boolean> {
  const page = await players.getPlayer({ playerId, recentTables: 1 });
  return page.ratings.some((rating) => rating.gameId === gameId);
}

export class LeaderboardPage {
  private readonly root = h("main", { class: "boards" });
  private around = false;

  constructor(private readonly gameId: string | undefined) {}

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {}

  async start(): Promise<void> {
    let games: GameDescription[];
    try {
      games = await listGames();
    } catch (error) {
      fill(this.root, h("h1", {}, tr("nav.leaderboards")), h("p", { class: "error", role: "alert" }, tr("lobby.no-gateway", failure(error))));
      return;
    }
    const game = games.find((g) => g.gameId === this.gameId) ?? games[0];
    if (!game) return;
    const board = h("div", { "data-testid": "leaderboard" }, h("p", {}, tr("lobby.loading")));
    const me = playerKey();
    const mode = (around: boolean, label: string) =>
      h(
        "button",
        {
          type: "button",
          class: this.around === around ? "" : "secondary",
          "aria-pressed": String(this.around === around),
          "data-testid": around ? "around-me" : "top",
          onclick: () => {
            this.around = around;
            void this.start();
          },
        },
        label,
      );
    fill(
      this.root,
      h("h1", {}, tr("nav.leaderboards")),
      h(
        "nav",
        { class: "tabs", "aria-label": tr("lobby.games") },
        games.map((g) =>
          h(
            "a",
            { href: `#/leaderboard/${encodeURIComponent(g.gameId)}`, class: "tab", "aria-current": g.gameId === game.gameId ? "page" : undefined },
            g.displayName,
          ),
        ),
      ),
      h(
        "p",
        { class: "small muted" },
        tr("boards.sorted"),
      ),
      me ? h("p", {}, mode(false, tr("boards.top", PAGE)), mode(true, tr("boards.around"))) : null,
      board,
    );
    await this.fillBoard(board, game, me?.playerId);
  }

  private async fillBoard(board: HTMLElement, game: GameDescription, me: string | undefined): Promise<void> {
    const notListed = () =>
      h(
        "p",
        { class: "note", role: "status", "data-testid": "not-listed" },
        tr("boards.not-on", game.displayName),
      );
    try {
      // Only rated players are on a board: one who is not is told so without asking for
      // the page around them, which the gateway answers NOT_ON_LEADERBOARD.
      if (this.around && me && !(await rated(me, game.gameId))) {
        fill(board, notListed());
        return;
      }
      const page = await players.listLeaderboard({ gameId: game.gameId, pageSize: PAGE, aroundPlayerId: this.around && me ? me : "" });
      if (!page.entries.length) {
        fill(board, h("p", { class: "muted" }, tr("boards.nobody", game.displayName)));
        return;
      }
      fill(
        board,
        h(
          "table",
          { class: "board-table" },
          h("caption", {}, tr("boards.caption", game.displayName, page.total)),
          h(
            "thead",
            {},
            h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, tr("boards.player")), h("th", { scope: "col" }, tr("boards.rating")), h("th", { scope: "col", class: "num", title: tr("boards.conservative-title") }, tr("boards.conservative")), h("th", { scope: "col", class: "num" }, tr("boards.games")), h("th", { scope: "col", class: "num" }, tr("boards.wins"))),
          ),
          h("tbody", {}, page.entries.map((entry) => this.row(entry, me))),
        ),
      );
    } catch (error) {
      // Rated a moment ago, and not yet on the board: the same answer.
      if (codeOf(error) === Code.NotFound && this.around) fill(board, notListed());
      else fill(board, h("p", { class: "error", role: "alert" }, tr("boards.unreadable", failure(error))));
    }
  }

  private row(entry: LeaderboardEntry, me: string | undefined): HTMLElement {
    const rating = entry.rating;
    const player = entry.player;
    const mine = player?.playerId === me;
    return h(
      "tr",
      { class: [mine ? "me" : "", rating?.provisional ? "provisional" : ""].join(" ").trim(), "data-player": player?.playerId ?? "" },
      h("td", { class: "num" }, whole(entry.rank)),
      h(
        "td",
        {},
        player ? playerLink(player.playerId, player.displayName) : "?",
        mine ? h("span", { class: "you" }, " (you)") : null,
        player?.bot ? h("span", { class: "badge", title: tr("boards.bot-title") }, "bot") : null,
        rating?.provisional ? h("span", { class: "badge", title: tr("boards.provisional-title") }, tr("rows.provisional")) : null,
      ),
      h("td", {}, rating ? ratingText(rating) : ""),
      h("td", { class: "num" }, rating ? whole(rating.conservative) : ""),
      h("td", { class: "num" }, rating ? whole(rating.games) : ""),
      h("td", { class: "num" }, rating ? whole(rating.wins) : ""),
    );
  }
}

export class PlayerPage {
  private readonly root = h("main", { class: "player-page" });

  constructor(private readonly playerId: string) {}

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {}

  async start(): Promise<void> {
    fill(this.root, h("p", {}, tr("lobby.loading")));
    try {
      const [page, games] = await Promise.all([players.getPlayer({ playerId: this.playerId, recentTables: 20 }), listGames()]);
      const names = new Map(games.map((g) => [g.gameId, g.displayName]));
      const player = page.player!;
      const mine = playerKey()?.playerId === player.playerId;
      fill(
        this.root,
        h(
          "h1",
          { "data-testid": "player-name" },
          player.displayName || player.playerId,
          player.bot ? h("span", { class: "badge" }, "bot") : null,
          mine ? h("span", { class: "badge me" }, "you") : null,
        ),
        player.createTime && !player.bot ? h("p", { class: "small muted" }, tr("boards.since"), timeOf(timestampMs(player.createTime), dateText(timestampMs(player.createTime)))) : null,
        mine ? h("p", { class: "small" }, h("a", { href: "#/me" }, tr("boards.settings"))) : socialButtons(player),
        page.reputation && page.reputation.games > 0 && !player.bot
          ? h("p", { "data-testid": "reputation" }, tr("boards.finished", whole(page.reputation.finished), whole(page.reputation.games)), page.reputation.finished < page.reputation.games ? tr("boards.left", whole(page.reputation.games - page.reputation.finished)) : "")
          : null,
        h("h2", {}, tr("boards.ratings")),
        page.ratings.length
          ? h(
              "table",
              { class: "board-table", "data-testid": "ratings" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, tr("boards.game")), h("th", { scope: "col" }, tr("boards.rating")), h("th", { scope: "col", class: "num" }, tr("boards.games")), h("th", { scope: "col", class: "num" }, tr("boards.wins")), h("th", { scope: "col" }, tr("boards.note"))),
              ),
              h(
                "tbody",
                {},
                page.ratings.map((r) =>
                  h(
                    "tr",
                    { "data-game": r.gameId },
                    h("td", {}, h("a", { href: `#/leaderboard/${encodeURIComponent(r.gameId)}`, title: tr("boards.game-board") }, names.get(r.gameId) ?? r.gameId)),
                    h("td", { title: tr("boards.sd") }, ratingText(r)),
                    h("td", { class: "num" }, whole(r.games)),
                    h("td", { class: "num" }, whole(r.wins)),
                    h("td", { class: "small muted" }, r.provisional ? tr("boards.provisional-note") : ""),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, tr("boards.no-rated")),
        h("h2", {}, tr("boards.recent")),
        page.recentTables.length
          ? h(
              "table",
              { class: "board-table", "data-testid": "recent" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, tr("boards.when")), h("th", { scope: "col" }, tr("boards.game")), h("th", { scope: "col" }, tr("boards.place")), h("th", { scope: "col", class: "num" }, tr("boards.change")), h("th", { scope: "col" }, tr("table.title"))),
              ),
              h(
                "tbody",
                {},
                page.recentTables.map((t) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, t.finishTime ? timeOf(timestampMs(t.finishTime), dateTimeText(timestampMs(t.finishTime))) : ""),
                    h("td", {}, names.get(t.gameId) ?? t.gameId),
                    h("td", {}, tr("boards.of", language() === "en" ? ordinal(t.place) : tr("boards.ordinal", t.place), t.playerCount) + (t.place === 1 ? tr("boards.won") : "")),
                    h("td", { class: `num ${Math.round(t.ratingChange) > 0 ? "up" : Math.round(t.ratingChange) < 0 ? "down" : ""}` }, signedWhole(t.ratingChange)),
                    h("td", {}, h("a", { href: `#/watch/${t.tableId}`, title: tr("boards.see-title") }, tr("boards.see"))),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, tr("boards.none-yet")),
        h("p", { class: "small muted" }, tr("boards.expire")),
      );
    } catch (error) {
      fill(
        this.root,
        h("h1", {}, tr("boards.player")),
        h("p", { class: "error", role: "alert" }, codeOf(error) === Code.NotFound ? tr("boards.no-player", failure(error)) : tr("boards.player-unreadable", failure(error))),
      );
    }
  }
}
