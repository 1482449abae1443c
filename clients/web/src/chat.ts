// The chat panel of a table's page (ChatService): the players' channel for a seat held by
// this browser's player, else the spectators' channel. Messages come from other people:
// each enters the page as a text node (dom.ts), never as HTML, and a link stays text.
// The panel is made once and kept across the table page's redraws, so what is typed stays.
import { bearer, chat, Code, codeOf, failure } from "./api";
import { fill, h } from "./dom";
import { ChatChannel, type ChatMessage } from "./gen/tavola/gateway/v1/chat_pb";
import type { Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { playerKey } from "./storage";
import { t } from "./i18n";

const MAX_CHARACTERS = 500;
const KEPT = 200; // messages shown; older ones leave the page

export class ChatPanel {
  private readonly abort = new AbortController();
  private readonly list = h("ol", { class: "plain" });
  // The live region around the list (a list keeps its own role, for its items' sake).
  private readonly log = h(
    "div",
    { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": t("chat.messages"), "data-testid": "chat-log", tabindex: "0" },
    this.list,
  );
  private readonly input = h("input", {
    id: "chat-input",
    "data-key": "chat-input",
    maxlength: String(MAX_CHARACTERS),
    autocomplete: "off",
    "data-testid": "chat-input",
  });
  private readonly problem = h("p", { class: "error", role: "alert", "data-testid": "chat-error" });
  private readonly entry: HTMLElement;
  private readonly root: HTMLElement;
  private lastId = "";

  constructor(
    private readonly tableId: string,
    private readonly channel: ChatChannel,
    private readonly token: string | undefined,
  ) {
    const title = channel === ChatChannel.PLAYERS ? t("chat.players") : t("chat.spectators");
    this.root = h(
      "section",
      { class: "panel chat", "aria-labelledby": "chat-title", "data-testid": "chat" },
      h("h2", { id: "chat-title" }, title),
      this.log,
      (this.entry = token ? this.form() : h("p", { class: "small" }, t("chat.needs-player"), h("a", { href: "#/me" }, t("nav.me")), ".")),
      this.problem,
    );
  }

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {
    this.abort.abort();
  }

  private form(): HTMLElement {
    return h(
      "form",
      {
        class: "chat-form",
        onsubmit: (event) => {
          event.preventDefault();
          void this.send();
        },
      },
      h("label", { for: "chat-input" }, t("chat.message")),
      this.input,
      h("button", { type: "submit", "data-testid": "chat-send" }, t("chat.send")),
    );
  }

  /** The channel's history, then each message as it comes; reconnects after a drop. */
  async follow(): Promise<void> {
    if (!this.token) return;
    let delay = 500;
    while (!this.abort.signal.aborted) {
      try {
        const stream = chat.watchChat(
          { tableId: this.tableId, channel: this.channel, afterId: this.lastId },
          { signal: this.abort.signal, ...bearer(this.token) },
        );
        for await (const response of stream) {
          for (const message of response.messages) this.show(message);
          delay = 500;
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        const code = codeOf(error);
        if (code === Code.FailedPrecondition) {
          // The channel is off here (an operator's choice, as at rated hidden-role tables):
          // a fact about the table, said quietly in place of the box, not an alert.
          this.entry.replaceWith(h("p", { class: "small muted", "data-testid": "chat-off" }, t("chat.off")));
          return;
        }
        if (code === Code.PermissionDenied || code === Code.Unauthenticated) {
          this.problem.textContent = t("chat.failed", failure(error));
          return; // no retry will change it
        }
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 8000);
    }
  }

  private show(message: ChatMessage): void {
    this.lastId = message.messageId;
    const seat = message.seat !== undefined ? ` (${t("chat.seat", message.seat + 1)})` : "";
    this.list.appendChild(
      h(
        "li",
        { "data-message-id": message.messageId },
        h("span", { class: "who" }, `${message.displayName}${seat}`),
        ": ",
        h("span", { class: "chat-text" }, message.text),
      ),
    );
    while (this.list.childElementCount > KEPT) this.list.firstElementChild?.remove();
    this.log.scrollTop = this.log.scrollHeight;
  }

  private async send(): Promise<void> {
    const text = this.input.value;
    if (!text.trim() || !this.token) return;
    try {
      await chat.sendChat({ tableId: this.tableId, channel: this.channel, text }, bearer(this.token));
      this.input.value = "";
      fill(this.problem);
    } catch (error) {
      this.problem.textContent = t("chat.not-sent", failure(error));
    }
    this.input.focus();
  }
}

/** A table's panel, following its channel: the players' when this browser's player holds a
 * seat there, else the spectators'. */
export function tableChat(table: Table): ChatPanel {
  const player = playerKey();
  const seated = !!player && table.seats.some((seat) => seat.playerId === player.playerId);
  const panel = new ChatPanel(table.tableId, seated ? ChatChannel.PLAYERS : ChatChannel.SPECTATORS, player?.token);
  void panel.follow();
  return panel;
}
