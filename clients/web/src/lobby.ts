// The lobby: the games, a form to open a table with bots and options, the open tables to
// join, the tables in progress to watch, and the tables this browser holds a seat at.
import { failure, gateway } from "./api";
import { botsByName, listBots, listGames, lobbyDecisionSeconds } from "./catalog";
import { fill, h, phrase } from "./dom";
import { t, tn } from "./i18n";
import { ClockMode } from "./gen/tavola/gateway/v1/clocks_pb";
import { SeatKind, TableStatus, TimeoutPolicy, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { OptionKind, type GameDescription } from "./gen/tavola/rules/v1/rules_pb";
import { level, levelText } from "./names";
import { tableSummary, type RowContext } from "./rows";
import { yourSeats } from "./seats";
import { asPlayer, keepSeat, playerName, seatKey, setPlayerName } from "./storage";

export class Lobby {
  private readonly root = h("main", { class: "lobby" });
  private readonly tables = h("div", { class: "tables" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  private readonly creator = h("div");
  private readonly timer: number;

  constructor() {
    this.timer = window.setInterval(() => void this.loadTables(), 5000);
  }

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {
    window.clearInterval(this.timer);
  }

  async start(): Promise<void> {
    const name = h("input", {
      id: "player-name",
      value: playerName(),
      maxlength: "40",
      placeholder: t("lobby.name-placeholder"),
      oninput: () => setPlayerName(name.value),
    });
    fill(
      this.root,
      h("h1", {}, t("lobby.title")),
      h("section", { class: "panel" }, h("label", { for: "player-name" }, t("lobby.your-name")), name),
      h(
        "p",
        { class: "quick-link" },
        h("a", { href: "#/quick", class: "button", "data-testid": "lobby-quick" }, t("nav.quick")),
        h("span", { class: "small" }, t("lobby.quick-about")),
      ),
      this.error,
      h("section", { "aria-label": t("lobby.games") }, h("h2", {}, t("lobby.games")), h("div", { class: "games" }, t("lobby.loading"))),
      this.creator,
      this.tables,
    );
    try {
      const games = await listGames();
      fill(
        this.root.querySelector(".games")!,
        games.map((game) =>
          h(
            "article",
            { class: "game-card" },
            h("h3", {}, game.displayName),
            h("p", { class: "small" }, game.summary),
            h("p", { class: "small muted" }, t("lobby.players-range", game.minPlayers, game.maxPlayers), " · ", h("a", { href: `#/learn/${game.gameId}`, "data-testid": `learn-${game.gameId}` }, t("learn.title"))),
            h("button", { "data-testid": `new-${game.gameId}`, onclick: () => void this.createForm(game) }, t("lobby.new-table", game.displayName)),
          ),
        ),
      );
    } catch (error) {
      this.error.textContent = t("lobby.no-gateway", failure(error));
    }
    await this.loadTables();
  }

  private async createForm(game: GameDescription): Promise<void> {
    const bots = await listBots(game.gameId);
    const count = h(
      "select",
      { id: "player-count", onchange: () => drawSeats() },
      Array.from({ length: game.maxPlayers - game.minPlayers + 1 }, (_, i) => {
        const n = game.minPlayers + i;
        return h("option", { value: String(n) }, tn("players", n));
      }),
    );
    count.value = String(Math.min(Math.max(3, game.minPlayers), game.maxPlayers));
    const seatRows = h("div", { class: "seat-rows" });
    const choices = [
      ...bots.map((bot) => ({ value: `bot:${bot.name}`, label: t("lobby.bot-choice", bot.name, levelText(level(bot.strength))), title: bot.description })),
      { value: "human", label: t("lobby.person"), title: "" },
    ];
    const drawSeats = () => {
      const n = Number(count.value);
      const kept = Array.from(seatRows.querySelectorAll("select"), (s) => s.value);
      fill(
        seatRows,
        h("p", {}, h("strong", {}, t("lobby.seat-you"))),
        Array.from({ length: n - 1 }, (_, i) => {
          const select = h(
            "select",
            { id: `seat-${i + 1}`, "aria-label": t("lobby.seat", i + 2) },
            choices.map((c) => h("option", { value: c.value, title: c.title }, c.label)),
          );
          select.value = kept[i] ?? choices[0].value;
          return h("p", {}, h("label", { for: `seat-${i + 1}` }, t("lobby.seat-label", i + 2)), select);
        }),
      );
    };
    drawSeats();
    const options = game.options.map((option) => {
      const id = `opt-${option.name}`;
      let input: HTMLInputElement | HTMLSelectElement;
      if (option.kind === OptionKind.BOOL) {
        input = h("input", { id, type: "checkbox", checked: option.defaultValue === "true" });
      } else if (option.kind === OptionKind.ENUM) {
        input = h("select", { id }, option.choices.map((c) => h("option", { value: c }, c)));
        input.value = option.defaultValue;
      } else {
        input = h("input", {
          id,
          type: "number",
          value: option.defaultValue,
          min: option.minimum?.toString(),
          max: option.maximum?.toString(),
        });
      }
      const read = () => (input instanceof HTMLInputElement && input.type === "checkbox" ? String(input.checked) : input.value);
      return {
        name: option.name,
        read,
        row: h("p", { title: option.description }, h("label", { for: id, title: option.name }, `${option.label || phrase(option.name)} `), input, h("span", { class: "small muted" }, ` ${option.description}`)),
      };
    });
    const timer = h("input", { id: "timer", type: "number", value: String(await lobbyDecisionSeconds()), min: "0", max: "3600" });
    // Correspondence: days a move, each player told when it is their turn (clocks.proto).
    const days = h("input", { id: "days", type: "number", value: "3", min: "1", max: "14" });
    const perDecision = h("p", {}, h("label", { for: "timer" }, t("lobby.seconds")), timer);
    const perMove = h("p", {}, h("label", { for: "days" }, t("lobby.days")), days, h("span", { class: "small muted" }, t("lobby.days-about")));
    perMove.hidden = true;
    const pace = h(
      "select",
      {
        id: "pace",
        onchange: () => {
          perDecision.hidden = pace.value !== "live";
          perMove.hidden = pace.value !== "correspondence";
        },
      },
      h("option", { value: "live" }, t("lobby.live")),
      h("option", { value: "correspondence" }, t("lobby.correspondence")),
    );
    const replay = h("input", { id: "replay", type: "checkbox" });
    const seed = h("input", { id: "seed", type: "number", min: "0", placeholder: t("lobby.seed") });
    const form = h(
      "form",
      {
        class: "panel create",
        "data-testid": "create-form",
        onsubmit: (event) => {
          event.preventDefault();
          void this.create(game, {
            players: Number(count.value),
            seats: Array.from(seatRows.querySelectorAll("select"), (s) => s.value),
            options: Object.fromEntries(options.map((o) => [o.name, o.read()])),
            timer: Math.max(0, Number(timer.value) || 0),
            days: pace.value === "correspondence" ? Math.min(14, Math.max(1, Math.round(Number(days.value) || 3))) : 0,
            replay: replay.checked,
            seed: seed.value,
          });
        },
      },
      h("h2", {}, t("lobby.new-table", game.displayName)),
      h("p", {}, h("label", { for: "player-count" }, t("lobby.players")), count),
      seatRows,
      options.length ? h("fieldset", {}, h("legend", {}, t("lobby.options")), options.map((o) => o.row)) : null,
      h("p", {}, h("label", { for: "pace" }, t("lobby.played")), pace),
      perDecision,
      perMove,
      h(
        "details",
        {},
        h("summary", {}, t("lobby.replay")),
        h(
          "p",
          { class: "small" },
          t("lobby.replay-about"),
        ),
        h("p", {}, h("label", { for: "replay" }, t("lobby.use-seed")), replay, " ", seed),
      ),
      h("button", { type: "submit", "data-testid": "create" }, t("lobby.create")),
    );
    fill(this.creator, form);
    form.scrollIntoView({ block: "start" });
    count.focus();
  }

  private async create(
    game: GameDescription,
    choice: { players: number; seats: string[]; options: Record<string, string>; timer: number; days: number; replay: boolean; seed: string },
  ): Promise<void> {
    try {
      const botSeats = choice.seats.flatMap((value, i) => (value.startsWith("bot:") ? [{ seat: i + 1, bot: value.slice(4) }] : []));
      const created = await gateway.createTable({
        gameId: game.gameId,
        playerCount: choice.players,
        options: choice.options,
        botSeats,
        autoStart: true,
        decisionTimer: choice.days
          ? { seconds: 0, policy: TimeoutPolicy.RANDOM_ACTION }
          : choice.timer
            ? { seconds: choice.timer, policy: TimeoutPolicy.RANDOM_ACTION }
            : undefined,
        clock: choice.days ? { mode: ClockMode.CORRESPONDENCE, moveSeconds: BigInt(choice.days * 86400) } : undefined,
        replayMode: choice.replay,
        seed: choice.replay && choice.seed ? BigInt(choice.seed) : undefined,
      });
      const tableId = created.table!.tableId;
      const seated = await gateway.takeSeat({ tableId, seat: 0, displayName: playerName() }, asPlayer());
      keepSeat(tableId, { seat: seated.seat, token: seated.seatToken });
      location.hash = `#/table/${tableId}`;
    } catch (error) {
      this.error.textContent = t("lobby.not-created", failure(error));
    }
  }

  private async join(table: Table): Promise<void> {
    try {
      const seated = await gateway.takeSeat({ tableId: table.tableId, displayName: playerName() }, asPlayer());
      keepSeat(table.tableId, { seat: seated.seat, token: seated.seatToken });
      location.hash = `#/table/${table.tableId}`;
    } catch (error) {
      this.error.textContent = t("lobby.no-seat", failure(error));
    }
  }

  private async loadTables(): Promise<void> {
    try {
      const games = new Map((await listGames()).map((g) => [g.gameId, g]));
      const [open, playing] = await Promise.all([
        gateway.listTables({ status: TableStatus.OPEN, pageSize: 20 }),
        gateway.listTables({ status: TableStatus.IN_PROGRESS, pageSize: 20 }),
      ]);
      const context: RowContext = { games, bots: await botsByName(), now: Date.now() };
      const row = (table: Table, joinable: boolean) => {
        const humans = table.seats.filter((s) => s.kind === SeatKind.HUMAN);
        const free = humans.filter((s) => !s.taken).length;
        const mine = seatKey(table.tableId);
        return h(
          "li",
          { class: "table-row", "data-table": table.tableId },
          tableSummary(table, joinable, context),
          h(
            "span",
            { class: "row-buttons" },
            mine
              ? h("a", { class: "button", href: `#/table/${table.tableId}` }, t("lobby.your-seat"))
              : joinable && free
                ? h("button", { onclick: () => void this.join(table) }, t("lobby.join"))
                : null,
            h("a", { class: "button secondary", href: `#/watch/${table.tableId}` }, t("lobby.watch")),
          ),
        );
      };
      const yours = await yourSeats(new Map([...games].map(([id, game]) => [id, game.displayName]))).catch(() => null);
      fill(
        this.tables,
        h("section", { "aria-label": t("lobby.open") }, h("h2", {}, t("lobby.open")), open.tables.length ? h("ul", { class: "plain" }, open.tables.map((t) => row(t, true))) : h("p", { class: "muted" }, t("lobby.none-open"))),
        h("section", { "aria-label": t("lobby.in-progress") }, h("h2", {}, t("lobby.being-played")), playing.tables.length ? h("ul", { class: "plain" }, playing.tables.map((t) => row(t, false))) : h("p", { class: "muted" }, t("lobby.none-playing"))),
        yours,
      );
    } catch (error) {
      this.error.textContent = t("lobby.not-listed", failure(error));
    }
  }
}
