// One table's page, for a seat (its token kept in this browser) or a spectator: the
// board from the typed view, the legal actions as menus, the countdown, the history in
// words, the end with who won and why, and the seed check.
import type { Message } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { bearer, Code, codeOf, failure, gateway, requestId, sessions, unpack } from "./api";
import { botsByName } from "./catalog";
import { tickClocks } from "./clocks";
import { fill, h } from "./dom";
import { checkSeed, endingPanel, type Verdict } from "./ending";
import { historyPanel } from "./history";
import { t } from "./i18n";
import { SeatKind, TableStatus, TimeoutPolicy, type GetViewResponse, type Table, type TableEvent } from "./gen/tavola/gateway/v1/gateway_pb";
import type { LegalAction } from "./gen/tavola/rules/v1/rules_pb";
import type { Ctx, GameRenderer } from "./games/api";
import { rendererFor } from "./games";
import { tableChat, type ChatPanel } from "./chat";
import { buildMenu, trailText, under, wordPaths, type Choice } from "./menu";
import { choicesHelp, loadHelp, rulesPanel } from "./help";
import { Seats } from "./names";
import { seatRatings, type SeatRating } from "./ratings";
import { asPlayer, keepSeat, loadLog, playerName, saveLog, seatKey, setPlayerName, type SeatKey } from "./storage";
import { tableHeader, waitingFor } from "./tablehead";

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

  /** The table's events from the last one seen, then live; reconnects after a drop. A seat
   * follows its session, whose updates carry its new view with the events; a spectator
   * watches the table and reads its public view. */
  private async follow(): Promise<void> {
    let delay = 500;
    while (!this.abort.signal.aborted) {
      try {
        for await (const update of this.updates()) {
          const fresh = update.events.filter((e) => e.seq > this.lastSeq);
          for (const event of fresh) this.remember(event);
          this.log.push(...fresh);
          saveLog(this.tableId, this.key?.seat, this.log);
          this.note = "";
          delay = 500;
          // No view: more events follow at once (the next update has it), or no deal yet.
          if (update.view || !this.table || this.table.status === TableStatus.OPEN) await this.refresh(update.view);
          this.render();
        }
        // The stream ended after the game's last event; events the platform added since (a
        // rating) leave its last update without a view: read the table as it is now.
        await this.refresh();
        this.render();
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
  /** The stream this page follows, from the last event seen: the seat's session, or the
   * spectators' one. */
  private async *updates(): AsyncIterable<{ events: TableEvent[]; view?: GetViewResponse }> {
    const options = { signal: this.abort.signal };
    if (this.key) {
      const request = { tableId: this.tableId, afterSeq: this.lastSeq };
      yield* sessions.follow(request, { ...options, ...bearer(this.key.token) });
      return;
    }
    const request = { tableId: this.tableId, afterSeq: this.lastSeq, batched: true };
    for await (const response of gateway.spectateTable(request, options)) {
      yield { events: [...response.events, ...(response.event ? [response.event] : [])] };
    }
  }

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
      if (this.table.status === TableStatus.FINISHED && this.verdict === "pending") this.verdict = await checkSeed(this.log, this.table);
    }
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
      tableHeader(table, this.seats, this.key?.seat, this.countdown),
      this.seatLost ? h("p", { class: "note", role: "status", "data-testid": "seat-lost" }, this.seatLost) : null,
      this.note ? h("p", { class: "note", role: "status" }, this.note) : null,
      this.error ? h("p", { class: "error", role: "alert", "data-testid": "error" }, this.error) : null,
      table.status === TableStatus.FINISHED ? endingPanel(table, ctx, this.log, this.key?.seat, this.view, this.renderer, this.verdict) : null,
      table.status === TableStatus.OPEN ? this.waiting(table) : null,
      this.actions(ctx),
      rulesPanel(table.gameId),
      this.view ? this.renderer.board(this.view, ctx) : null,
      this.chat?.element(),
      historyPanel(this.log, ctx, this.renderer),
    );
    this.tick();
    // Keep the keyboard where it was across a redraw; on a new decision, start at its menu.
    const again = focused ? this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`) : null;
    if (again) again.focus();
    else if (this.mustDecide && !this.submitting && document.activeElement === document.body) {
      this.root.querySelector<HTMLElement>(".actions button")?.focus();
    }
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
}
