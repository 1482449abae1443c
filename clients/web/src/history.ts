// The table page's history: every event of the table in words, oldest first, in a log
// that scrolls in its own box.
import { schemaOf, unpack } from "./api";
import { eventWords } from "./describe";
import { h } from "./dom";
import { t } from "./i18n";
import { SeatKind, type TableEvent } from "./gen/tavola/gateway/v1/gateway_pb";
import type { Ctx, GameRenderer } from "./games/api";
import { hex } from "./verify";

export function historyPanel(log: TableEvent[], ctx: Ctx, renderer: GameRenderer | undefined): HTMLElement {
  const items = log.map((event) => h("li", { "data-seq": String(event.seq) }, eventText(event, ctx, renderer)));
  const list = h("ol", { class: "history-list" }, items);
  list.style.setProperty("--digits", String(String(items.length).length));
  // A log (read out as it grows) that the keyboard reaches and scrolls: it scrolls in its own box.
  const box = h("div", { class: "history-log", role: "log", tabindex: "0", "aria-labelledby": "history-title", "data-testid": "history" }, list);
  queueMicrotask(() => (box.scrollTop = box.scrollHeight));
  return h("section", { class: "history", "aria-labelledby": "history-title" }, h("h2", { id: "history-title" }, t("table.history")), box);
}

function eventText(event: TableEvent, ctx: Ctx, renderer: GameRenderer | undefined): string {
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
      return ctx.seats.text(renderer?.eventText?.(message, ctx) ?? eventWords(schema, message, ctx.seats));
    }
    default:
      return "";
  }
}
