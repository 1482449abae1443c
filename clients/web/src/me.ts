// The player this browser plays as (PlayerService): made with a display name, kept by its
// secret token (shown once, kept in localStorage), renamed, signed out everywhere (a new token), forgotten,
// or brought from another device by pasting its token; and its tables, with rejoin.
import { bearer, Code, codeOf, failure, players } from "./api";
import { listGames } from "./catalog";
import { fill, h } from "./dom";
import { TableStatus, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { notificationPanel } from "./push";
import { ratingText } from "./ratings";
import { forgetPlayer, keepPlayer, keepSeat, playerIdOf, playerKey, playerName, seatKey, type PlayerKey } from "./storage";
import { t, tn } from "./i18n";

/** The token just issued, shown once with its warning; dismissed by the player. */
export function tokenNotice(token: string, onDone: () => void): HTMLElement {
  const code = h("code", { class: "token", "data-testid": "player-token" }, token);
  const copied = h("span", { class: "small", role: "status" });
  const done = h("button", { type: "button", "data-testid": "token-saved", onclick: () => onDone() }, t("me.kept"));
  return h(
    "section",
    { class: "panel token-notice", "aria-labelledby": "token-title", "data-testid": "token-notice" },
    h("h2", { id: "token-title" }, t("me.token-title")),
    h(
      "p",
      {},
      t("me.token-about"),
    ),
    h("p", {}, code),
    h(
      "p",
      {},
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: () =>
            void navigator.clipboard?.writeText(token).then(
              () => (copied.textContent = t("me.copied")),
              () => (copied.textContent = t("me.no-copy")),
            ),
        },
        t("me.copy"),
      ),
      done,
      copied,
    ),
  );
}

/** A form that makes a player: a display name in, the player and its token out. */
export function createPlayerForm(onCreated: (key: PlayerKey) => void, error: HTMLElement): HTMLElement {
  const name = h("input", { id: "new-player-name", value: playerName(), maxlength: "64", placeholder: t("lobby.name-placeholder"), required: true });
  return h(
    "form",
    {
      class: "panel",
      "data-testid": "create-player",
      onsubmit: (event) => {
        event.preventDefault();
        error.textContent = "";
        players.createPlayer({ displayName: name.value }).then(
          (made) => {
            const key = { token: made.playerToken, playerId: made.player!.playerId, name: made.player!.displayName };
            keepPlayer(key);
            onCreated(key);
          },
          (failed) => (error.textContent = t("me.not-made", failure(failed))),
        );
      },
    },
    h("h2", {}, t("me.make-title")),
    h("p", { class: "small muted" }, t("me.make-about")),
    h("label", { for: "new-player-name" }, t("me.display-name")),
    name,
    " ",
    h("button", { type: "submit", "data-testid": "create-player-button" }, t("me.make")),
  );
}

/** A form that brings a player from another device by its token. */
function pasteTokenForm(onKept: (key: PlayerKey) => void, error: HTMLElement): HTMLElement {
  const token = h("input", { id: "paste-token", type: "password", placeholder: "p.…", autocomplete: "off", required: true });
  return h(
    "form",
    {
      class: "panel",
      "data-testid": "paste-token-form",
      onsubmit: (event) => {
        event.preventDefault();
        error.textContent = "";
        const value = token.value.trim();
        const playerId = playerIdOf(value);
        if (!playerId) {
          error.textContent = t("me.not-a-token");
          return;
        }
        // Checked by asking for the token's own page: a forged or replaced token is refused.
        players.getPlayer({ playerId: "" }, bearer(value)).then(
          (page) => {
            const key = { token: value, playerId, name: page.player?.displayName ?? "" };
            keepPlayer(key);
            onKept(key);
          },
          (failed) => (error.textContent = t("me.token-fails", failure(failed))),
        );
      },
    },
    h("h2", {}, t("me.have-one")),
    h("p", { class: "small muted" }, t("me.paste-about")),
    h("label", { for: "paste-token" }, t("me.token-label")),
    token,
    " ",
    h("button", { type: "submit", class: "secondary" }, t("me.use-token")),
  );
}

export class MePage {
  private readonly root = h("main", { class: "me" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  private readonly status = h("p", { class: "good", role: "status", "data-testid": "status" });
  private issued = ""; // a token just issued, shown once

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {}

  async start(): Promise<void> {
    await this.render();
  }

  private async render(): Promise<void> {
    const key = playerKey();
    if (!key) {
      fill(
        this.root,
        h("h1", {}, t("me.title")),
        this.error,
        createPlayerForm((made) => {
          this.issued = made.token;
          void this.render();
        }, this.error),
        pasteTokenForm(() => void this.render(), this.error),
      );
      this.root.querySelector<HTMLInputElement>("#new-player-name")?.focus();
      return;
    }
    fill(this.root, h("h1", {}, t("me.title")), this.error, h("p", {}, t("me.loading")));
    let name = key.name;
    try {
      const page = await players.getPlayer({ playerId: "", recentTables: 0 }, bearer(key.token));
      name = page.player?.displayName ?? name;
      if (name !== key.name) keepPlayer({ ...key, name });
      const games = new Map((await listGames()).map((g) => [g.gameId, g.displayName]));
      this.draw(key, name, page.ratings.map((r) => ({ gameId: games.get(r.gameId) ?? r.gameId, text: ratingText(r), games: r.games, wins: r.wins })));
    } catch (error) {
      this.draw(key, name, []);
      this.error.textContent =
        codeOf(error) === Code.Unauthenticated
          ? t("me.token-replaced")
          : t("me.unreadable", failure(error));
    }
    await this.myTables(key);
  }

  private draw(key: PlayerKey, name: string, ratings: { gameId: string; text: string; games: number; wins: number }[]): void {
    const rename = h("input", { id: "rename", value: name, maxlength: "64", required: true });
    const tables = h("section", { class: "panel", "aria-labelledby": "my-tables-title", "data-testid": "my-tables" }, h("h2", { id: "my-tables-title" }, t("me.tables")), h("p", {}, t("me.loading")));
    fill(
      this.root,
      h("h1", {}, t("me.title-named"), h("span", { "data-testid": "me-name" }, name)),
      this.error,
      this.status,
      this.issued
        ? tokenNotice(this.issued, () => {
            this.issued = "";
            void this.render();
          })
        : null,
      h(
        "p",
        {},
        h("a", { href: `#/player/${encodeURIComponent(key.playerId)}`, "data-testid": "my-page" }, t("me.public-page")),
        t("me.public-about"),
        h("a", { href: "#/quick", class: "button" }, t("me.quick")),
      ),
      ratings.length
        ? h("ul", { class: "plain small" }, ratings.map((r) => h("li", {}, tn("me.rating", r.games, r.gameId, r.text, r.wins))))
        : h("p", { class: "small muted" }, t("me.no-rated")),
      tables,
      h(
        "form",
        {
          class: "panel",
          onsubmit: (event) => {
            event.preventDefault();
            void this.rename(key, rename.value);
          },
        },
        h("h2", {}, t("me.name")),
        h("label", { for: "rename" }, t("me.rename-label")),
        rename,
        " ",
        h("button", { type: "submit", "data-testid": "rename-button" }, t("me.rename")),
      ),
      notificationPanel(),
      h(
        "section",
        { class: "panel", "aria-labelledby": "token-section" },
        h("h2", { id: "token-section" }, t("me.token")),
        h(
          "p",
          { class: "small" },
          t("me.token-explained"),
        ),
        this.confirming(
          "sign-out-everywhere",
          t("me.sign-out"),
          t("me.sign-out-warning"),
          t("me.sign-out-yes"),
          () => void this.signOutEverywhere(key),
        ),
        this.confirming(
          "forget",
          t("me.forget"),
          t("me.forget-warning"),
          t("me.forget-yes"),
          () => {
            forgetPlayer();
            this.status.textContent = "";
            void this.render();
          },
        ),
      ),
    );
  }

  /** A button that asks once more, in the page (no browser dialog), before acting. */
  private confirming(id: string, label: string, warning: string, yes: string, act: () => void): HTMLElement {
    const box = h("div", { class: "confirm" });
    const ask = (): void => {
      fill(
        box,
        h("p", { class: "note" }, warning),
        h("button", { type: "button", "data-testid": `${id}-yes`, onclick: act }, yes),
        h("button", { type: "button", class: "secondary", onclick: () => reset(true) }, t("me.cancel")),
      );
      box.querySelector<HTMLElement>("button")?.focus();
    };
    const reset = (focus = false): void => {
      const button = h("button", { type: "button", class: "secondary", "data-testid": id, onclick: ask }, label);
      fill(box, button);
      if (focus) button.focus();
    };
    reset();
    return box;
  }

  private async rename(key: PlayerKey, name: string): Promise<void> {
    this.error.textContent = "";
    try {
      const renamed = await players.renamePlayer({ displayName: name }, bearer(key.token));
      keepPlayer({ ...key, name: renamed.player!.displayName });
      await this.render();
      this.status.textContent = t("me.renamed");
    } catch (error) {
      this.error.textContent = t("me.not-renamed", failure(error));
    }
  }

  /** A new token for this browser; every seat token of the player stops working, and the
   * seats this browser held are taken back here with the new token. */
  private async signOutEverywhere(key: PlayerKey): Promise<void> {
    this.error.textContent = "";
    try {
      const fresh = await players.signOutEverywhere({}, bearer(key.token));
      keepPlayer({ ...key, token: fresh.playerToken });
      this.issued = fresh.playerToken;
      const here = fresh.signedOutTableIds.filter((tableId) => seatKey(tableId) !== undefined);
      const back = await Promise.allSettled(
        here.map(async (tableId) => {
          const seated = await players.rejoinSeat({ tableId }, bearer(fresh.playerToken));
          keepSeat(tableId, { seat: seated.seat, token: seated.seatToken });
        }),
      );
      const kept = back.filter((result) => result.status === "fulfilled").length;
      const count = fresh.signedOutTableIds.length;
      this.status.textContent = tn("me.signed-out", count) + (here.length ? t("me.taken-back", kept) : "");
      await this.render();
      this.root.querySelector<HTMLElement>("[data-testid=token-saved]")?.focus();
    } catch (error) {
      this.error.textContent = t("me.not-signed-out", failure(error));
    }
  }

  private async myTables(key: PlayerKey): Promise<void> {
    const section = this.root.querySelector("[data-testid=my-tables]");
    if (!section) return;
    const title = section.querySelector("h2")!;
    try {
      const [mine, games] = await Promise.all([players.listMyTables({ pageSize: 20 }, bearer(key.token)), listGames()]);
      const names = new Map(games.map((g) => [g.gameId, g.displayName]));
      fill(
        section,
        title,
        mine.tables.length
          ? h(
              "ul",
              { class: "plain" },
              mine.tables.map(({ table, seat }) => (table ? this.tableRow(key, table, seat, names.get(table.gameId) ?? table.gameId) : null)),
            )
          : h("p", { class: "muted" }, t("me.no-tables")),
      );
    } catch (error) {
      fill(section, title, h("p", { class: "error" }, t("me.tables-unreadable", failure(error))));
    }
  }

  private tableRow(key: PlayerKey, table: Table, seat: number, game: string): HTMLElement {
    const held = seatKey(table.tableId);
    const finished = table.status === TableStatus.FINISHED;
    const statuses: Partial<Record<TableStatus, string>> = {
      [TableStatus.OPEN]: t("me.waiting"),
      [TableStatus.IN_PROGRESS]: t("me.playing"),
      [TableStatus.FINISHED]: t("me.finished"),
    };
    const status = statuses[table.status] ?? "";
    return h(
      "li",
      { class: "table-row", "data-table": table.tableId },
      h("strong", {}, game),
      h("span", { class: "small" }, t("me.table-row", table.playerCount, seat + 1, status)),
      table.rated ? h("span", { class: "badge" }, t("me.rated")) : null,
      h(
        "span",
        { class: "row-buttons" },
        held?.seat === seat && !finished
          ? h("a", { class: "button", href: `#/table/${table.tableId}` }, t("me.open"))
          : !finished
            ? h("button", { "data-testid": `rejoin-${table.tableId}`, onclick: () => void this.rejoin(key, table.tableId) }, t("me.rejoin"))
            : null,
        finished ? h("a", { class: "button secondary", href: held ? `#/table/${table.tableId}` : `#/watch/${table.tableId}` }, t("me.see-end")) : null,
      ),
    );
  }

  private async rejoin(key: PlayerKey, tableId: string): Promise<void> {
    this.error.textContent = "";
    try {
      const seated = await players.rejoinSeat({ tableId }, bearer(key.token));
      keepSeat(tableId, { seat: seated.seat, token: seated.seatToken });
      location.hash = `#/table/${tableId}`;
    } catch (error) {
      this.error.textContent = t("me.not-rejoined", failure(error));
    }
  }
}
