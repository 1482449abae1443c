// One table's page, for a seat (its token kept in this browser) or a spectator: the
// board from the typed view, the legal actions as menus, the countdown, the history in
// words, the end with who won and why, and the seed check.
import type { Message } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { bearer, Code, codeOf, failure, gateway, requestId, schemaOf, unpack } from "./api";
import { botsByName, listGames } from "./catalog";
import { seatClock, tickClocks } from "./clocks";
import { eventWords } from "./describe";
import { fill, h } from "./dom";
import { t, tn, type Key } from "./i18n";
import {
  SeatKind,
  TableStatus,
  TimeoutPolicy,
  type GameFinished,
  type GetViewResponse,
  type Table,
  type TableEvent,
} from "./gen/tavola/gateway/v1/gateway_pb";
import type { LegalAction } from "./gen/tavola/rules/v1/rules_pb";
import type { Ctx, GameRenderer } from "./games/api";
import { rendererFor } from "./games";
import { tableChat, type ChatPanel } from "./chat";
import { buildMenu, trailText, under, wordPaths, type Choice } from "./menu";
import { choicesHelp, loadHelp, rulesPanel } from "./help";
import { Seats } from "./names";
import { seatRatings, type SeatRating } from "./ratings";
import { asPlayer, keepSeat, loadLog, playerName, saveLog, seatKey, setPlayerName, type SeatKey } from "./storage";
import { hex, verifySeed } from "./verify";

type Verdict = "pending" | "verified" | "failed" | "unavailable";

const READ_TIMEOUT_MS = 20_000;

export class TablePage {
  private key: SeatKey | undefined;
  private table: Table | undefined;
  private view: Message | undefined;
  private legal: LegalAction[] = [];
  private mustDecide = false;
  private log: TableEvent[] = [];
  private gameEvents: Message[] = [];
  private lastSeq = 0n;
  private menuPath: number[] = [];
  private menuVersion = -1n;
  private error = "";
  private note = "";
  private seatLost = ""; // why this page no longer plays its seat, when it stopped
  private submitting = false;
  private decidedAt = -1n; // the table version this page last decided on
  private verdict: Verdict = "pending";
  private seats: Seats | undefined;
  private ratings = new Map<number, SeatRating>();
  private ratingsFor = ""; // the seats (and status) the ratings were read for
  private renderer: GameRenderer | undefined;
  private chat: ChatPanel | undefined; // made once the table is read: its channel depends on the seat
  private readonly abort = new AbortController();
  private readonly timer: number;
  private readonly root = h("main", { class: "table-page" });
  private readonly countdown = h("span", { class: "countdown", "data-testid": "countdown", "aria-live": "off" });

  constructor(
    private readonly tableId: string,
    spectate: boolean,
  ) {
    this.key = spectate ? undefined : seatKey(tableId);
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {
    this.abort.abort();
    this.chat?.stop();
    window.clearInterval(this.timer);
  }


  async start(): Promise<void> {
    fill(this.root, h("p", {}, t("table.loading")));
    this.log = loadLog(this.tableId, this.key?.seat);
    for (const event of this.log) this.remember(event);
    try {
      await this.refresh();
    } catch (error) {
      fill(this.root, h("h1", {}, t("table.title")), h("p", { role: "alert", class: "error" }, t("table.cannot-show", failure(error))), h("a", { href: "#/" }, t("table.back")));
      return;
    }
    if (this.table) this.chat ??= tableChat(this.table);
    this.render();
    void this.follow();
  }

  /** The table's events from the last one seen, then live; reconnects after a drop. */
  private async follow(): Promise<void> {
    let delay = 500;
    while (!this.abort.signal.aborted) {
      try {
        const request = { tableId: this.tableId, afterSeq: this.lastSeq, batched: true };
        const options = { signal: this.abort.signal };
        const stream = this.key
          ? gateway.watchTable(request, { ...options, ...bearer(this.key.token) })
          : gateway.spectateTable(request, options);
        for await (const response of stream) {
          const fresh = [...response.events, ...(response.event ? [response.event] : [])].filter((e) => e.seq > this.lastSeq);
          for (const event of fresh) this.remember(event);
          this.log.push(...fresh);
          saveLog(this.tableId, this.key?.seat, this.log);
          this.note = "";
          delay = 500;
          await this.refresh();
          this.render();
        }
        if (this.table?.status === TableStatus.FINISHED) return;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        if (this.key && codeOf(error) === Code.PermissionDenied) {
          // The seat's token stopped working: its player rejoined it from another device, or
          // a bot took it over. This page follows on as a spectator, and says so.
          this.key = undefined;
          this.legal = [];
          this.mustDecide = false;
          const why = failure(error);
          this.seatLost = t("table.seat-lost", `${why.charAt(0).toUpperCase()}${why.slice(1)}`);
          this.lastSeq = 0n;
          this.log = [];
          this.gameEvents = [];
          this.render();
          continue;
        }
        this.note = t("table.reconnecting", failure(error));
        this.render();
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 8000);
      await this.refresh().catch(() => undefined);
    }
  }

  private remember(event: TableEvent): void {
    if (event.seq > this.lastSeq) this.lastSeq = event.seq;
    if (event.body.case === "gameEvent") {
      const message = unpack(event.body.value);
      if (message) this.gameEvents.push(message);
    }
  }

  /** A read of the table gives up after READ_TIMEOUT_MS: one left unanswered would hold
   * the stream's loop (which reads after each event) for good; a failed read is retried. */
  private readOptions(): { signal: AbortSignal; timeoutMs: number } {
    return { signal: this.abort.signal, timeoutMs: READ_TIMEOUT_MS };
  }

  /** False for a table older than the one shown: refreshes overlap (one after a submit, one
   * after the stream's events), and their answers may come back in either order. */
  private newer(table: Table | undefined): table is Table {
    return !!table && (!this.table || table.version >= this.table.version);
  }

  /** ``known``: the seat's view already in hand (SubmitAction answers it), read no more. */
  private async refresh(known?: GetViewResponse): Promise<void> {
    // A seat's view exists from the deal on; before it, the public summary is all there is.
    const open = !this.table || this.table.status === TableStatus.OPEN;
    if (this.key && open) {
      const response = await gateway.getTable({ tableId: this.tableId }, this.readOptions());
      if (this.newer(response.table)) this.table = response.table;
    }
    if (this.key && this.table?.status !== TableStatus.OPEN) {
      const response = known ?? (await gateway.getView({ tableId: this.tableId }, { ...bearer(this.key.token), ...this.readOptions() }));
      if (this.newer(response.table)) {
        this.table = response.table;
        this.view = unpack(response.view);
        this.legal = response.legalActions;
        this.mustDecide = response.mustDecide;
      }
    } else if (!this.key) {
      const response = await gateway.getTable({ tableId: this.tableId }, this.readOptions());
      if (this.newer(response.table)) {
        this.table = response.table;
        this.view = unpack(response.spectatorView);
        this.legal = [];
        this.mustDecide = false;
      }
    }
    if (this.table) {
      // Ratings, read again when a seat changes hands and once more at the end (updated then).
      const who = `${this.table.seats.map((s) => `${s.playerId}/${s.bot}`).join(",")}|${this.table.status === TableStatus.FINISHED}`;
      if (who !== this.ratingsFor) {
        this.ratingsFor = who;
        this.ratings = await seatRatings(this.table);
      }
      this.seats = new Seats(this.table, this.key?.seat, await botsByName(this.table.gameId), this.ratings);
      this.renderer ??= rendererFor(this.table.gameId);
      await loadHelp(this.table.gameId); // once a page: the rules panel and what each choice does
      if (this.table.version !== this.menuVersion) {
        this.menuVersion = this.table.version;
        this.menuPath = [];
      }
      if (this.table.status === TableStatus.FINISHED && this.verdict === "pending") await this.verify();
    }
  }

  private async verify(): Promise<void> {
    const finished = this.log.find((e) => e.body.case === "gameFinished")?.body.value as GameFinished | undefined;
    if (!finished) return; // the end was read before its event arrived: checked when it does
    const commitment = this.table?.seedCommitment;
    if (!finished.seedReveal || !commitment?.length) {
      this.verdict = "unavailable";
      return;
    }
    const ok = await verifySeed(commitment, finished.seedReveal.seed, finished.seedReveal.salt);
    this.verdict = ok ? "verified" : "failed";
  }

  private ctx(): Ctx {
    return { table: this.table!, seats: this.seats!, me: this.key?.seat, events: this.gameEvents };
  }

  private render(): void {
    const table = this.table;
    if (!table || !this.seats || !this.renderer) return;
    this.root.dataset.version = String(table.version); // the state shown, for tests and bug reports
    const focused = document.activeElement?.getAttribute("data-key");
    const ctx = this.ctx();
    fill(
      this.root,
      this.header(table),
      this.seatLost ? h("p", { class: "note", role: "status", "data-testid": "seat-lost" }, this.seatLost) : null,
      this.note ? h("p", { class: "note", role: "status" }, this.note) : null,
      this.error ? h("p", { class: "error", role: "alert", "data-testid": "error" }, this.error) : null,
      table.status === TableStatus.FINISHED ? this.ending(table, ctx) : null,
      table.status === TableStatus.OPEN ? this.waiting(table) : null,
      this.actions(ctx),
      rulesPanel(table.gameId),
      this.view ? this.renderer.board(this.view, ctx) : null,
      this.chat?.element(),
      this.history(ctx),
    );
    this.tick();
    // Keep the keyboard where it was across a redraw; on a new decision, start at its menu.
    const again = focused ? this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`) : null;
    if (again) again.focus();
    else if (this.mustDecide && !this.submitting && document.activeElement === document.body) {
      this.root.querySelector<HTMLElement>(".actions button")?.focus();
    }
  }

  private header(table: Table): HTMLElement {
    const seats = this.seats!;
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
        this.key ? null : h("span", { class: "badge", "data-testid": "spectator" }, t("table.watching")),
        this.countdown,
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
            { class: `${table.decidingSeats.includes(seat.seat) ? "deciding" : ""}${seat.seat === this.key?.seat ? " me" : ""}` },
            seats.tag(seat.seat),
            seats.rating(seat.seat),
            table.decidingSeats.includes(seat.seat) ? h("span", { class: "turn-mark", title: t("table.deciding-now") }, t("table.to-decide")) : null,
            seatClock(table, seat.seat),
          ),
        ),
      ),
    );
  }

  private tick(): void {
    const table = this.table;
    if (table) tickClocks(this.root, table);
    const deadline = table?.decisionDeadline;
    if (!table || !deadline || table.status !== TableStatus.IN_PROGRESS) {
      this.countdown.textContent = "";
      return;
    }
    const left = Math.max(0, Math.ceil((timestampMs(deadline) - Date.now()) / 1000));
    const humans = table.decidingSeats.filter((s) => table.seats[s]?.kind === SeatKind.HUMAN);
    const mine = this.key !== undefined && humans.includes(this.key.seat);
    const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    const who = mine ? t("table.you-have", time) : humans.length === 1 ? t("table.seat-has", this.seats?.name(humans[0]) ?? "", time) : t("table.seats-have", time);
    const then = table.decisionTimer?.policy === TimeoutPolicy.BOT_TAKES_SEAT ? t("table.then-bot") : t("table.then-random");
    this.countdown.textContent = `${who} (${then})`;
    this.countdown.className = `countdown${mine && left <= 10 ? " urgent" : ""}`;
  }

  private waiting(table: Table): HTMLElement {
    const free = table.seats.filter((s) => s.kind === SeatKind.HUMAN && !s.taken);
    const link = `${location.origin}${location.pathname}${location.search}#/table/${table.tableId}`;
    return h(
      "section",
      { class: "panel" },
      h("p", {}, waitingFor(table, free.length)),
      free.length ? h("p", { class: "small" }, t("table.invite"), h("code", { class: "link" }, link)) : null,
      !this.key && free.length ? this.takeSeat(table) : null,
    );
  }

  private takeSeat(table: Table): HTMLElement {
    const name = h("input", { id: "seat-name", value: playerName(), maxlength: "40", placeholder: t("table.name-placeholder") });
    const form = h(
      "form",
      {
        class: "take-seat",
        onsubmit: (event) => {
          event.preventDefault();
          void this.join(name.value);
        },
      },
      table.replayMode ? h("p", { class: "trust warn" }, t("table.before-sit")) : null,
      h("label", { for: "seat-name" }, t("table.name")),
      name,
      h("button", { type: "submit" }, t("table.take-seat")),
    );
    return form;
  }

  private async join(name: string): Promise<void> {
    setPlayerName(name);
    try {
      const response = await gateway.takeSeat({ tableId: this.tableId, displayName: name }, asPlayer());
      this.key = { seat: response.seat, token: response.seatToken };
      keepSeat(this.tableId, this.key);
      this.stop();
      location.hash = `#/table/${this.tableId}`;
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    } catch (error) {
      this.error = failure(error);
      this.render();
    }
  }

  private actions(ctx: Ctx): HTMLElement | null {
    if (!this.key || this.table?.status !== TableStatus.IN_PROGRESS) return null;
    if (!this.mustDecide || !this.legal.length || this.table.version <= this.decidedAt) {
      const deciding = this.table.decidingSeats;
      return h(
        "section",
        { class: "actions waiting-turn", "aria-label": t("table.your-actions") },
        h("p", {}, deciding.length ? [t("table.waiting-for"), deciding.map((s, i) => [i ? ", " : "", ctx.seats.tag(s)]), "…"] : t("table.waiting")),
      );
    }
    const labels = this.legal.map((item) => ctx.seats.text(item.label));
    const paths = this.legal.map((item, i) => {
      const action = unpack(item.action);
      return (action && this.renderer?.actionPath?.(action, item.label, ctx)) || undefined;
    });
    const menu = buildMenu(paths.every(Boolean) ? (paths as string[][]) : wordPaths(labels));
    let level: Choice[] = menu;
    const trail: string[] = [];
    for (const step of this.menuPath) {
      const next = level[step];
      if (!next || next.index !== undefined) break;
      trail.push(next.label);
      level = next.children;
    }
    return h(
      "section",
      { class: "actions", "aria-label": t("table.your-actions"), "data-testid": "actions" },
      h("h2", {}, t("table.your-move"), trail.length ? `: ${trailText(trail)}` : ""),
      h(
        "div",
        { class: "choices" },
        this.menuPath.length
          ? h("button", { class: "secondary", "data-key": "back", onclick: () => this.openMenu(this.menuPath.slice(0, -1)) }, t("table.back-menu"))
          : null,
        level.map((choice, i) =>
          h(
            "button",
            {
              "data-key": `${this.menuPath.join(".")}/${choice.label}`,
              "data-action": choice.index !== undefined ? String(choice.index) : undefined,
              disabled: this.submitting,
              "aria-describedby": "choice-help",
              onclick: () => (choice.index !== undefined ? void this.submit(choice.index) : this.openMenu([...this.menuPath, i])),
            },
            under(choice.label, trail[trail.length - 1]),
          ),
        ),
      ),
      choicesHelp(this.table.gameId, this.legal, level),
    );
  }

  private openMenu(path: number[]): void {
    this.menuPath = path;
    this.render();
    this.root.querySelector<HTMLElement>(".actions .choices button:not(.secondary), .actions .choices button")?.focus();
  }

  private async submit(index: number): Promise<void> {
    const chosen = this.legal[index];
    if (!chosen?.action || !this.key || !this.table) return;
    this.submitting = true;
    this.error = "";
    this.render();
    let known: GetViewResponse | undefined;
    try {
      const submitted = this.table.version;
      const answer = await gateway.submitAction(
        { tableId: this.tableId, action: chosen.action, expectedVersion: submitted, requestId: requestId() },
        bearer(this.key.token),
      );
      // The decision shown is made: none is offered again until a newer table is read
      // (this refresh's, or the stream's should this one's answer come back older).
      this.decidedAt = submitted;
      known = answer.view; // the seat's new view: no GetView after the move
    } catch (error) {
      this.error = t("table.not-accepted", failure(error));
    }
    this.submitting = false;
    await this.refresh(known).catch(() => undefined);
    this.render();
  }

  private history(ctx: Ctx): HTMLElement {
    const items = this.log.map((event) => h("li", { "data-seq": String(event.seq) }, this.eventText(event, ctx)));
    const list = h("ol", { class: "history-list" }, items);
    list.style.setProperty("--digits", String(String(items.length).length));
    // A log (read out as it grows) that the keyboard reaches and scrolls: it scrolls in its own box.
    const log = h("div", { class: "history-log", role: "log", tabindex: "0", "aria-labelledby": "history-title", "data-testid": "history" }, list);
    queueMicrotask(() => (log.scrollTop = log.scrollHeight));
    return h("section", { class: "history", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, t("table.history")), log);
  }

  private eventText(event: TableEvent, ctx: Ctx): string {
    // The gateway's words, the same in every client; the client's own only where it sent none.
    if (event.text) return event.text;
    const body = event.body;
    switch (body.case) {
      case "seatTaken":
        return t("table.sat-down", body.value.kind === SeatKind.BOT ? ctx.seats.name(body.value.seat) : body.value.displayName || t("rows.a-player"));
      case "tableStarted":
        return t("table.dealt", hex(body.value.seedCommitment).slice(0, 16));
      case "decisionExpired":
        return t("table.ran-out", ctx.seats.who(body.value.seat));
      case "gameFinished":
        return t("table.over-text", ctx.seats.text(body.value.outcome?.summary ?? ""), String(body.value.seedReveal?.seed ?? "?"));
      case "gameEvent": {
        const message = unpack(body.value);
        const schema = schemaOf(body.value);
        if (!message || !schema) return t("table.event-of-type", body.value.typeUrl);
        return ctx.seats.text(this.renderer?.eventText?.(message, ctx) ?? eventWords(schema, message, ctx.seats));
      }
      default:
        return "";
    }
  }

  private ending(table: Table, ctx: Ctx): HTMLElement {
    if (table.abandoned) {
      // Ended by the platform, not the game: its event says why; no winner, no seed to check.
      const why = [...this.log].reverse().find((event) => event.body.case === "tableAbandoned")?.text;
      const back = h("p", {}, h("a", { href: "#/" }, t("table.back")));
      const said = why ? h("p", { class: "summary", "data-testid": "why" }, why) : null;
      return h("section", { class: "panel ending", "data-testid": "ending", "aria-label": t("table.table-over") }, h("h2", { "data-testid": "headline" }, t("table.nobody-played")), said, back);
    }
    const winners = table.outcome?.winners ?? [];
    const me = this.key?.seat;
    const headline =
      me !== undefined && winners.includes(me)
        ? winners.length > 1
          ? t("table.you-win-with", winners.filter((w) => w !== me).map((w) => ctx.seats.name(w)).join(", "))
          : t("table.you-win")
        : winners.length
          ? tn("table.wins", winners.length, winners.map((w) => ctx.seats.who(w)).join(t("table.and")))
          : t("table.nobody-wins");
    const why = [...this.log].reverse().find((event) => event.body.case === "gameEvent")?.text;
    const verdicts: Record<Verdict, string> = {
      pending: t("table.seed-pending"),
      verified: t("table.seed-verified"),
      failed: t("table.seed-failed"),
      unavailable: t("table.seed-unavailable"),
    };
    return h(
      "section",
      { class: "panel ending", "data-testid": "ending", "aria-label": t("table.game-over") },
      // As written: "You win!", "random 2 wins." (a name keeps its own case).
      h("h2", { "data-testid": "headline" }, headline),
      // Why, in the game's own words (its last event's text), else the outcome's one line.
      why ? h("p", { class: "summary", "data-testid": "why" }, why) : null,
      !why && table.outcome?.summary ? h("p", { class: "summary" }, ctx.seats.text(table.outcome.summary)) : null,
      this.view ? (this.renderer?.ending?.(this.view, ctx) ?? null) : null,
      h("p", { class: `verdict ${this.verdict}`, "data-testid": "seed-verdict" }, verdicts[this.verdict]),
      table.rated
        ? h(
            "p",
            { class: "small" },
            t("table.rated-game"),
            // A seat's player has a page of their own; a spectator has none at this table.
            me !== undefined ? [h("a", { href: "#/me" }, t("table.your-player")), t("table.and")] : null,
            t("table.the"),
            h("a", { href: `#/leaderboard/${encodeURIComponent(table.gameId)}` }, t("table.leaderboard")),
            ".",
          )
        : null,
      h("p", {}, h("a", { href: "#/" }, t("table.back")), me !== undefined ? [" · ", h("a", { href: "#/quick" }, t("table.quick-again"))] : null),
    );
  }
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
