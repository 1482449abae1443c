// Friends (SocialService): #/friends lists whom this player follows, with friends' presence
// and tables to watch or join, the players blocked, invitations to answer and friends to
// invite; every page shows an invitation as it comes, and tells friends where this player is
// (online, away while the window is hidden, at a table while one is open).
import { createClient, type Client } from "@connectrpc/connect";
import { failure, gateway, players, transport } from "./api";
import { listGames } from "./catalog";
import { fill, h } from "./dom";
import { TableStatus, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import type { Player } from "./gen/tavola/gateway/v1/players_pb";
import { PresenceState, SocialService, type Friend, type Invitation } from "./gen/tavola/gateway/v1/social_pb";
import { asPlayer, keepSeat, playerKey } from "./storage";
import { t, type Key } from "./i18n";

export const social: Client<typeof SocialService> = createClient(SocialService, transport);

const PRESENCE_WORDS: Record<number, Key> = {
  [PresenceState.ONLINE]: "friends.online",
  [PresenceState.AWAY]: "friends.away",
  [PresenceState.AT_TABLE]: "friends.at-table",
  [PresenceState.OFFLINE]: "friends.offline",
};
// Presence lasts 90 s on the gateway: told again every minute while the page is open.
const PRESENCE_EVERY_MS = 60_000;

/** Follow and block buttons for another player's page (nothing without a player here). */
export function socialButtons(other: Player): HTMLElement | null {
  const me = playerKey();
  if (!me || other.bot || other.playerId === me.playerId) return null;
  const said = h("span", { class: "small", role: "status" });
  const act = (label: string, call: () => Promise<unknown>, done: string) =>
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () =>
          void call().then(
            () => (said.textContent = done),
            (error) => (said.textContent = failure(error)),
          ),
      },
      label,
    );
  return h(
    "p",
    { class: "social-buttons", "data-testid": "social-buttons" },
    act(t("friends.follow"), () => social.followPlayer({ playerId: other.playerId }, asPlayer()), t("friends.followed")),
    " ",
    act(t("friends.block"), () => social.blockPlayer({ playerId: other.playerId }, asPlayer()), t("friends.blocked-now")),
    said,
  );
}

/** Takes the invitation's seat as this player and opens the table. */
async function accept(invitation: Invitation): Promise<void> {
  const answered = await social.answerInvitation({ invitationId: invitation.invitationId, accept: true }, asPlayer());
  const tableId = answered.table?.tableId ?? invitation.table?.tableId ?? "";
  const seated = await gateway.takeSeat({ tableId }, asPlayer());
  keepSeat(tableId, { seat: seated.seat, token: seated.seatToken });
  location.hash = `#/table/${tableId}`;
}

function invitationItem(invitation: Invitation, gameName: (id: string) => string, onGone: () => void): HTMLElement {
  const error = h("span", { class: "error", role: "alert" });
  const from = invitation.inviter?.displayName ?? t("friends.a-friend");
  const game = gameName(invitation.table?.gameId ?? "");
  return h(
    "li",
    { "data-testid": "invitation" },
    t("friends.invites", from, game),
    h("button", { type: "button", onclick: () => void accept(invitation).catch((e) => (error.textContent = failure(e))) }, t("friends.accept")),
    " ",
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () =>
          void social.answerInvitation({ invitationId: invitation.invitationId, accept: false }, asPlayer()).then(onGone, (e) => (error.textContent = failure(e))),
      },
      t("friends.decline"),
    ),
    error,
  );
}

/** Keeps this player's presence told and shows invitations as they come, on every page. */
export class SocialLink {
  private readonly banner = h("ul", { class: "invitations", "aria-live": "polite", "aria-label": t("friends.invitations") });
  private abort?: AbortController;
  private timer?: number;
  private tableId = "";

  element(): HTMLElement {
    return this.banner;
  }

  /** Where this player is now: at the table open in the page, else online (or away). */
  at(tableId: string): void {
    this.tableId = tableId;
    this.tell();
  }

  private tell(): void {
    if (!playerKey()) return;
    const state = document.hidden ? PresenceState.AWAY : this.tableId ? PresenceState.AT_TABLE : PresenceState.ONLINE;
    const tableId = state === PresenceState.AT_TABLE ? this.tableId : "";
    // A table where this player holds no seat (a spectator's) is refused: online then.
    void social.setPresence({ state, tableId }, asPlayer()).catch(() => {
      if (tableId) void social.setPresence({ state: PresenceState.ONLINE }, asPlayer()).catch(() => undefined);
    });
  }

  start(): void {
    this.stop();
    if (!playerKey()) return;
    this.tell();
    this.timer = window.setInterval(() => this.tell(), PRESENCE_EVERY_MS);
    document.addEventListener("visibilitychange", this.onVisibility);
    const abort = (this.abort = new AbortController());
    void this.watch(abort.signal);
  }

  stop(): void {
    this.abort?.abort();
    if (this.timer) window.clearInterval(this.timer);
    document.removeEventListener("visibilitychange", this.onVisibility);
    this.banner.replaceChildren();
  }

  private readonly onVisibility = () => this.tell();

  private async watch(signal: AbortSignal): Promise<void> {
    const names = new Map((await listGames().catch(() => [])).map((g) => [g.gameId, g.displayName]));
    try {
      for await (const message of social.watchInvitations({}, { ...asPlayer(), signal })) {
        if (!message.invitation) continue;
        const item: HTMLElement = invitationItem(message.invitation, (id) => names.get(id) ?? id, () => item.remove());
        this.banner.append(item);
      }
    } catch {
      // The stream ended (another page, a sign-out, the gateway away): the Friends page
      // still lists pending invitations.
    }
  }
}

function presenceText(friend: Friend): string {
  if (!friend.followsYou) return t("friends.not-back");
  return t(PRESENCE_WORDS[friend.presence?.state ?? PresenceState.OFFLINE] ?? "friends.offline");
}

/** #/friends. */
export class FriendsPage {
  private readonly root = h("main", { class: "friends-page" });

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {}

  async start(): Promise<void> {
    if (!playerKey()) {
      fill(this.root, h("h1", {}, t("friends.title")), h("p", {}, t("friends.first"), h("a", { href: "#/me" }, t("friends.first-link")), t("friends.first-end")));
      return;
    }
    fill(this.root, h("h1", {}, t("friends.title")), h("p", {}, t("friends.loading")));
    try {
      await this.show();
    } catch (error) {
      fill(this.root, h("h1", {}, t("friends.title")), h("p", { class: "error", role: "alert" }, failure(error)));
    }
  }

  private async show(): Promise<void> {
    const [list, pending, games, mine] = await Promise.all([
      social.listFriends({}, asPlayer()),
      social.listInvitations({}, asPlayer()),
      listGames(),
      players.listMyTables({ pageSize: 20 }, asPlayer()),
    ]);
    const names = new Map(games.map((g) => [g.gameId, g.displayName]));
    const gameName = (id: string) => names.get(id) ?? id;
    const openMine = mine.tables.map((t) => t.table).filter((t): t is Table => !!t && t.status === TableStatus.OPEN);
    const refresh = () => void this.start();
    fill(
      this.root,
      h("h1", {}, t("friends.title")),
      h("p", { class: "small muted" }, t("friends.about")),
      h("h2", {}, t("friends.invitations")),
      pending.invitations.length
        ? h("ul", { "data-testid": "pending-invitations" }, pending.invitations.map((i) => invitationItem(i, gameName, refresh)))
        : h("p", { class: "muted" }, t("friends.none-waiting")),
      h("h2", {}, t("friends.following")),
      list.following.length
        ? h("ul", { class: "friends", "data-testid": "following" }, list.following.map((f) => this.friendItem(f, gameName, openMine, refresh)))
        : h("p", { class: "muted" }, t("friends.follow-nobody")),
      h("h2", {}, t("friends.blocked")),
      list.blocked.length
        ? h(
            "ul",
            { "data-testid": "blocked" },
            list.blocked.map((p) =>
              h("li", {}, p.displayName, " ", h("button", { type: "button", class: "secondary", onclick: () => void social.unblockPlayer({ playerId: p.playerId }, asPlayer()).then(refresh) }, t("friends.unblock"))),
            ),
          )
        : h("p", { class: "muted" }, t("friends.block-nobody")),
    );
  }

  private friendItem(friend: Friend, gameName: (id: string) => string, openMine: Table[], refresh: () => void): HTMLElement {
    const player = friend.player!;
    const said = h("span", { class: "small", role: "status" });
    const tables = friend.tables.map((table) =>
      h(
        "li",
        {},
        table.status === TableStatus.OPEN ? t("friends.table-waiting", gameName(table.gameId)) : t("friends.table-playing", gameName(table.gameId)),
        h("a", { href: `#/watch/${table.tableId}` }, t("friends.watch")),
        table.status === TableStatus.OPEN ? [t("friends.or"), h("a", { href: "#/" }, t("friends.join"))] : null,
      ),
    );
    const invite =
      friend.followsYou && openMine.length
        ? h(
            "select",
            {
              "aria-label": t("friends.invite-label", player.displayName),
              onchange: (event: Event) => {
                const tableId = (event.target as HTMLSelectElement).value;
                if (!tableId) return;
                void social.invite({ playerId: player.playerId, tableId }, asPlayer()).then(
                  () => (said.textContent = t("friends.invited")),
                  (error) => (said.textContent = ` ${failure(error)}`),
                );
              },
            },
            h("option", { value: "" }, t("friends.invite-to")),
            openMine.map((t) => h("option", { value: t.tableId }, `${gameName(t.gameId)} (${t.tableId.slice(0, 6)})`)),
          )
        : null;
    return h(
      "li",
      { "data-testid": "friend", "data-presence": friend.followsYou ? String(friend.presence?.state ?? 0) : "hidden" },
      h("a", { href: `#/player/${encodeURIComponent(player.playerId)}` }, player.displayName),
      ` (${presenceText(friend)}) `,
      h("button", { type: "button", class: "secondary", onclick: () => void social.unfollowPlayer({ playerId: player.playerId }, asPlayer()).then(refresh) }, t("friends.unfollow")),
      " ",
      invite,
      said,
      tables.length ? h("ul", { class: "small" }, tables) : null,
    );
  }
}
