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
      fill(this.root, h("h1", {}, "Leaderboards"), h("p", { class: "error", role: "alert" }, `The gateway does not answer: ${failure(error)}`));
      return;
    }
    const game = games.find((g) => g.gameId === this.gameId) ?? games[0];
    if (!game) return;
    const board = h("div", { "data-testid": "leaderboard" }, h("p", {}, "Loading…"));
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
      h("h1", {}, "Leaderboards"),
      h(
        "nav",
        { class: "tabs", "aria-label": "Games" },
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
        "Sorted by the conservative rating (rating − 3 × uncertainty), so a player is listed high only once the rating is sure. Players still in their provisional rated games (against established players or bots) are marked provisional and listed after every established one.",
      ),
      me ? h("p", {}, mode(false, `Top ${PAGE}`), mode(true, "Around me")) : null,
      board,
    );
    await this.fillBoard(board, game, me?.playerId);
  }

  private async fillBoard(board: HTMLElement, game: GameDescription, me: string | undefined): Promise<void> {
    const notListed = () =>
      h(
        "p",
        { class: "note", role: "status", "data-testid": "not-listed" },
        `You are not on the ${game.displayName} leaderboard yet: players appear from their first rated game of it.`,
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
        fill(board, h("p", { class: "muted" }, `Nobody is on the ${game.displayName} leaderboard yet.`));
        return;
      }
      fill(
        board,
        h(
          "table",
          { class: "board-table" },
          h("caption", {}, `${game.displayName}: ${page.total} on the board`),
          h(
            "thead",
            {},
            h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Rating"), h("th", { scope: "col", class: "num", title: "rating − 3 × uncertainty: what the board sorts by" }, "Conservative"), h("th", { scope: "col", class: "num" }, "Games"), h("th", { scope: "col", class: "num" }, "Wins")),
          ),
          h("tbody", {}, page.entries.map((entry) => this.row(entry, me))),
        ),
      );
    } catch (error) {
      // Rated a moment ago, and not yet on the board: the same answer.
      if (codeOf(error) === Code.NotFound && this.around) fill(board, notListed());
      else fill(board, h("p", { class: "error", role: "alert" }, `The leaderboard could not be read: ${failure(error)}`));
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
        player?.bot ? h("span", { class: "badge", title: "a bot: one of the platform's players, at one setting" }, "bot") : null,
        rating?.provisional ? h("span", { class: "badge", title: "fewer rated games against established players or bots than it takes to rank among them" }, "provisional") : null,
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
    fill(this.root, h("p", {}, "Loading…"));
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
        player.createTime && !player.bot ? h("p", { class: "small muted" }, "Player since ", timeOf(timestampMs(player.createTime), dateText(timestampMs(player.createTime)))) : null,
        mine ? h("p", { class: "small" }, h("a", { href: "#/me" }, "Your player's settings and tables")) : socialButtons(player),
        page.reputation && page.reputation.games > 0 && !player.bot
          ? h("p", { "data-testid": "reputation" }, `Finished ${whole(page.reputation.finished)} of ${whole(page.reputation.games)} rated games`, page.reputation.finished < page.reputation.games ? ` (${whole(page.reputation.games - page.reputation.finished)} left to a bot before the end, each scored last)` : "")
          : null,
        h("h2", {}, "Ratings"),
        page.ratings.length
          ? h(
              "table",
              { class: "board-table", "data-testid": "ratings" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, "Game"), h("th", { scope: "col" }, "Rating"), h("th", { scope: "col", class: "num" }, "Games"), h("th", { scope: "col", class: "num" }, "Wins"), h("th", { scope: "col" }, "Note")),
              ),
              h(
                "tbody",
                {},
                page.ratings.map((r) =>
                  h(
                    "tr",
                    { "data-game": r.gameId },
                    h("td", {}, h("a", { href: `#/leaderboard/${encodeURIComponent(r.gameId)}`, title: "the game's leaderboard" }, names.get(r.gameId) ?? r.gameId)),
                    h("td", { title: "rating ± one standard deviation" }, ratingText(r)),
                    h("td", { class: "num" }, whole(r.games)),
                    h("td", { class: "num" }, whole(r.wins)),
                    h("td", { class: "small muted" }, r.provisional ? "provisional: listed after the established players" : ""),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No rated game yet."),
        h("h2", {}, "Recent rated tables"),
        page.recentTables.length
          ? h(
              "table",
              { class: "board-table", "data-testid": "recent" },
              h(
                "thead",
                {},
                h("tr", {}, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Game"), h("th", { scope: "col" }, "Place"), h("th", { scope: "col", class: "num" }, "Rating change"), h("th", { scope: "col" }, "Table")),
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
                    h("td", {}, `${ordinal(t.place)} of ${t.playerCount}${t.place === 1 ? " (won)" : ""}`),
                    h("td", { class: `num ${Math.round(t.ratingChange) > 0 ? "up" : Math.round(t.ratingChange) < 0 ? "down" : ""}` }, signedWhole(t.ratingChange)),
                    h("td", {}, h("a", { href: `#/watch/${t.tableId}`, title: "the table as a spectator sees it: its end and its history" }, "See the table")),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "None yet."),
        h("p", { class: "small muted" }, "Finished tables are kept for a while, then expire: an old table's link may find nothing."),
      );
    } catch (error) {
      fill(
        this.root,
        h("h1", {}, "Player"),
        h("p", { class: "error", role: "alert" }, codeOf(error) === Code.NotFound ? `No such player: ${failure(error)}` : `This player's page could not be read: ${failure(error)}`),
      );
    }
  }
}
