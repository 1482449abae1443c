// Quick play (PlayerService.FindGame): pick a game, how many players, rated or not; then a
// waiting screen with the time waited and what is happening, until the gateway seats the
// player (straight to the table) or the search ends. Cancel closes the stream, which is
// what takes the player out of the queue.
import { bearer, failure, players } from "./api";
import { listGames } from "./catalog";
import { fill, h, phrase } from "./dom";
import { whole } from "./format";
import type { TakeSeatResponse } from "./gen/tavola/gateway/v1/gateway_pb";
import { OptionKind, type GameDescription } from "./gen/tavola/rules/v1/rules_pb";
import { createPlayerForm, tokenNotice } from "./me";
import { keepSeat, playerKey, type PlayerKey } from "./storage";
import { t } from "./i18n";

interface Wanted {
  game: GameDescription;
  low: number;
  high: number;
  rated: boolean;
  botFill: boolean;
  finishers: boolean;
  options: Record<string, string>;
}

// "Only players who finish their games": the share of their rated games a player must
// have finished to be seated with you (FindGameRequest.min_reputation).
const FINISHERS = 0.9;

export class QuickPlayPage {
  private readonly root = h("main", { class: "quick" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  private search: AbortController | undefined;
  private clock: number | undefined;
  private issued = "";
  private last: Wanted | undefined;

  constructor(private readonly gameId: string | undefined) {}

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {
    this.search?.abort(); // leaving the page leaves the queue
    window.clearInterval(this.clock);
  }

  async start(): Promise<void> {
    await this.form();
  }

  private async form(): Promise<void> {
    window.clearInterval(this.clock);
    const key = playerKey();
    if (!key) {
      fill(
        this.root,
        h("h1", {}, t("nav.quick")),
        h("p", {}, t("quick.about")),
        this.error,
        createPlayerForm((made) => {
          this.issued = made.token;
          void this.form();
        }, this.error),
        h("p", { class: "small" }, t("quick.have-player"), h("a", { href: "#/me" }, t("quick.paste-token")), "."),
      );
      this.root.querySelector<HTMLInputElement>("#new-player-name")?.focus();
      return;
    }
    let games: GameDescription[];
    try {
      games = await listGames();
    } catch (error) {
      fill(this.root, h("h1", {}, t("nav.quick")), h("p", { class: "error", role: "alert" }, t("lobby.no-gateway", failure(error))));
      return;
    }
    const wanted = this.last;
    const game = h("select", { id: "qp-game" }, games.map((g) => h("option", { value: g.gameId }, g.displayName)));
    game.value = wanted?.game.gameId ?? this.gameId ?? games[0]?.gameId ?? "";
    const low = h("select", { id: "qp-min" });
    const high = h("select", { id: "qp-max" });
    const rated = h("input", { id: "qp-rated", type: "checkbox", checked: wanted?.rated ?? true });
    const botFill = h("input", { id: "qp-bots", type: "checkbox", checked: wanted?.botFill ?? true });
    const finishers = h("input", { id: "qp-finishers", type: "checkbox", checked: wanted?.finishers ?? false });
    const optionBox = h("div", {});
    let readOptions: () => Record<string, string> = () => ({});
    const chosen = (): GameDescription => games.find((g) => g.gameId === game.value) ?? games[0];
    const counts = (): void => {
      const g = chosen();
      const keep = [Number(low.value) || wanted?.low, Number(high.value) || wanted?.high];
      const numbers = Array.from({ length: g.maxPlayers - g.minPlayers + 1 }, (_, i) => g.minPlayers + i);
      fill(low, numbers.map((n) => h("option", { value: String(n) }, String(n))));
      fill(high, numbers.map((n) => h("option", { value: String(n) }, String(n))));
      const clamp = (n: number | undefined, fallback: number) => String(n && n >= g.minPlayers && n <= g.maxPlayers ? n : fallback);
      low.value = clamp(keep[0], g.minPlayers);
      high.value = clamp(keep[1], Math.min(Math.max(g.minPlayers, 4), g.maxPlayers));
      readOptions = drawOptions(optionBox, g, wanted?.game.gameId === g.gameId ? wanted.options : {});
    };
    game.addEventListener("change", counts);
    low.addEventListener("change", () => Number(high.value) < Number(low.value) && (high.value = low.value));
    high.addEventListener("change", () => Number(low.value) > Number(high.value) && (low.value = high.value));
    counts();
    const form = h(
      "form",
      {
        class: "panel",
        "data-testid": "quick-form",
        onsubmit: (event) => {
          event.preventDefault();
          const wanted: Wanted = {
            game: chosen(),
            low: Number(low.value),
            high: Number(high.value),
            rated: rated.checked,
            botFill: botFill.checked,
            finishers: finishers.checked,
            options: readOptions(),
          };
          this.last = wanted;
          void this.find(key, wanted);
        },
      },
      h("p", {}, h("label", { for: "qp-game" }, t("quick.game")), game),
      h(
        "fieldset",
        { class: "inline" },
        h("legend", {}, t("quick.players")),
        h("label", { for: "qp-min" }, t("quick.from")),
        low,
        h("label", { for: "qp-max" }, t("quick.to")),
        high,
      ),
      h("p", {}, rated, h("label", { for: "qp-rated" }, t("quick.rated"))),
      h("p", {}, botFill, h("label", { for: "qp-bots" }, t("quick.bots"))),
      h("p", {}, finishers, h("label", { for: "qp-finishers" }, t("quick.finishers", FINISHERS * 100))),
      h("details", {}, h("summary", {}, t("quick.options")), h("p", { class: "small muted" }, t("quick.options-about")), optionBox),
      h("button", { type: "submit", "data-testid": "find-game" }, t("quick.find")),
    );
    fill(
      this.root,
      h("h1", {}, t("nav.quick")),
      h("p", { class: "small muted" }, t("quick.playing-as"), h("strong", {}, key.name), " · ", h("a", { href: "#/me" }, t("table.your-player"))),
      this.error,
      this.issued
        ? tokenNotice(this.issued, () => {
            this.issued = "";
            void this.form();
          })
        : null,
      form,
    );
    (this.issued ? this.root.querySelector<HTMLElement>("[data-testid=token-saved]") : game)?.focus();
  }

  private async find(key: PlayerKey, wanted: Wanted): Promise<void> {
    this.error.textContent = "";
    const search = new AbortController();
    this.search = search;
    const started = Date.now();
    let waited = 0; // the gateway's count, when it has sent one
    let botFillAt = 0;
    let timeoutAt = 0;
    let ratingWindow = 0;
    const elapsed = h("p", { class: "elapsed", "data-testid": "elapsed" });
    const doing = h("p", { "data-testid": "searching", role: "status" });
    const bots = h("p", { class: "small", "data-testid": "bot-fill" });
    const cancel = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "data-testid": "cancel-search",
        onclick: () => {
          search.abort(); // closes the stream: the gateway takes the player out of the queue
          void this.form().then(() => {
            this.root.querySelector("[data-testid=error]")!.textContent = "";
            const said = h("p", { role: "status", "data-testid": "cancelled" }, t("quick.cancelled"));
            this.root.querySelector("form")?.before(said);
          });
        },
      },
      t("quick.cancel"),
    );
    const count = wanted.low === wanted.high ? `${wanted.low} players` : `${wanted.low} to ${wanted.high} players`;
    const draw = (): void => {
      const seconds = Math.max(waited, (Date.now() - started) / 1000);
      elapsed.textContent = t("quick.waiting", clock(seconds));
      if (!doing.textContent) doing.textContent = t("quick.asking");
      if (botFillAt > 0) {
        bots.textContent =
          seconds < botFillAt
            ? t("quick.bots-at", clock(botFillAt), Math.ceil(botFillAt - seconds))
            : t("quick.filling");
      } else if (timeoutAt > 0) {
        bots.textContent = t("quick.no-bots", clock(timeoutAt));
      }
    };
    fill(
      this.root,
      h(
        "section",
        { class: "panel waiting", "aria-labelledby": "waiting-title", "data-testid": "waiting" },
        h("h1", { id: "waiting-title" }, t("quick.finding", wanted.game.displayName)),
        h("p", { class: "small muted" }, `${count} · ${wanted.rated ? "rated" : "not rated"}${Object.keys(wanted.options).length ? " · your options" : ""}`),
        elapsed,
        doing,
        bots,
        cancel,
      ),
      this.error,
    );
    cancel.focus();
    draw();
    this.clock = setInterval(draw, 500) as unknown as number;
    try {
      const stream = players.findGame(
        {
          gameId: wanted.game.gameId,
          minPlayers: wanted.low,
          maxPlayers: wanted.high === wanted.low ? 0 : wanted.high,
          rated: wanted.rated,
          options: wanted.options,
          botFill: wanted.botFill,
          minReputation: wanted.finishers ? FINISHERS : 0,
        },
        { ...bearer(key.token), signal: search.signal },
      );
      let seated: TakeSeatResponse | undefined;
      for await (const progress of stream) {
        waited = progress.waitedSeconds;
        botFillAt = progress.botFillSeconds;
        timeoutAt = progress.timeoutSeconds;
        ratingWindow = progress.ratingWindow;
        doing.textContent = wanted.rated
          ? t("quick.rated-window", whole(ratingWindow))
          : t("quick.searching");
        draw();
        if (progress.seated?.table) seated = progress.seated;
      }
      // Read to the stream's end before leaving the page (which closes the stream): a stream
      // closed while the gateway still writes the seat may lose it.
      if (seated?.table) {
        clearInterval(this.clock);
        keepSeat(seated.table.tableId, { seat: seated.seat, token: seated.seatToken });
        doing.textContent = t("quick.seated");
        location.hash = `#/table/${seated.table.tableId}`;
        return;
      }
      if (!search.signal.aborted) throw new Error("the gateway ended the search without a seat");
    } catch (error) {
      if (search.signal.aborted) return;
      clearInterval(this.clock);
      await this.form();
      this.error.textContent = t("quick.none", failure(error));
    }
  }
}

/** The game's options, defaults shown; returns a reader of the options changed. Only the
 * changed ones are sent, so that everyone who left the defaults is in the same queue. */
function drawOptions(box: HTMLElement, game: GameDescription, chosen: Record<string, string>): () => Record<string, string> {
  const rows = game.options.map((option) => {
    const id = `qp-opt-${option.name}`;
    const value = chosen[option.name] ?? option.defaultValue;
    let input: HTMLInputElement | HTMLSelectElement;
    if (option.kind === OptionKind.BOOL) {
      input = h("input", { id, type: "checkbox", checked: value === "true" });
    } else if (option.kind === OptionKind.ENUM) {
      input = h("select", { id }, option.choices.map((c) => h("option", { value: c }, c)));
      input.value = value;
    } else {
      input = h("input", { id, type: "number", value, min: option.minimum?.toString(), max: option.maximum?.toString() });
    }
    const read = (): string => (input instanceof HTMLInputElement && input.type === "checkbox" ? String(input.checked) : input.value);
    return {
      option,
      read,
      row: h("p", {}, h("label", { for: id, title: option.name }, `${option.label || phrase(option.name)} `), input, h("span", { class: "small muted" }, ` ${option.description}`)),
    };
  });
  fill(box, rows.length ? rows.map((r) => r.row) : h("p", { class: "muted small" }, t("quick.no-options")));
  return () => Object.fromEntries(rows.filter((r) => r.read() !== r.option.defaultValue).map((r) => [r.option.name, r.read()]));
}

/** 75 -> "1:15". */
function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
