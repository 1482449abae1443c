// The lobby's "Your seats": the tables this browser's player (or guest seats) sits at, those
// where it is your turn first, each by its game's and its players' names.
import { gateway, players } from "./api";
import { seatClock } from "./clocks";
import { h } from "./dom";
import { SeatKind, TableStatus, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { pushOffer } from "./push";
import { asPlayer, playerKey, seatKey, seatedTables } from "./storage";
import { t } from "./i18n";

interface Mine {
  table: Table;
  seat: number;
  yourTurn: boolean;
  gameName: string;
}

const GUEST_TABLES = 10;

function yourTurn(table: Table, seat: number): boolean {
  return table.status === TableStatus.IN_PROGRESS && table.decidingSeats.includes(seat) && table.seats[seat]?.kind === SeatKind.HUMAN;
}

/** The player's tables (ListMyTables, your turn first) and this browser's guest seats. */
async function mine(games: Map<string, string>): Promise<Mine[]> {
  const found: Mine[] = [];
  if (playerKey()) {
    const listed = await players.listMyTables({ pageSize: 20 }, asPlayer());
    for (const t of listed.tables) if (t.table) found.push({ table: t.table, seat: t.seat, yourTurn: t.yourTurn, gameName: t.gameName });
  }
  const known = new Set(found.map((m) => m.table.tableId));
  const guests = seatedTables().filter((id) => !known.has(id)).slice(-GUEST_TABLES);
  const tables = await Promise.all(guests.map((tableId) => gateway.getTable({ tableId }).then((r) => r.table).catch(() => undefined)));
  for (const table of tables) {
    const seat = table ? seatKey(table.tableId)?.seat : undefined;
    if (!table || seat === undefined) continue;
    found.push({ table, seat, yourTurn: yourTurn(table, seat), gameName: games.get(table.gameId) ?? table.gameId });
  }
  // Your turn first; otherwise as listed (newest first).
  return found.map((m, i) => ({ m, i })).sort((a, b) => Number(b.m.yourTurn) - Number(a.m.yourTurn) || a.i - b.i).map(({ m }) => m);
}

function row(m: Mine): HTMLElement {
  const others = m.table.seats.filter((s) => s.seat !== m.seat).map((s) => s.displayName || t("lobby.seat", s.seat + 1));
  const status = m.table.status === TableStatus.FINISHED ? t("table.status-finished") : m.table.status === TableStatus.OPEN ? t("seats.waiting") : "";
  return h(
    "li",
    { class: `my-table${m.yourTurn ? " your-turn" : ""}`, "data-table": m.table.tableId, "data-your-turn": String(m.yourTurn) },
    m.yourTurn ? h("span", { class: "badge turn", "data-testid": "your-turn" }, t("seats.your-turn")) : null,
    h("a", { href: `#/table/${m.table.tableId}` }, h("strong", {}, m.gameName), others.length ? t("seats.with", others.join(", ")) : ""),
    status ? h("span", { class: "small muted" }, ` · ${status}`) : null,
    m.yourTurn ? seatClock(m.table, m.seat) : null,
  );
}

/** The "Your seats" section, or null when this browser sits nowhere. */
export async function yourSeats(games: Map<string, string>): Promise<HTMLElement | null> {
  const tables = await mine(games);
  if (!tables.length) return null;
  return h(
    "section",
    { "aria-label": t("seats.tables") },
    h("h2", {}, t("seats.title")),
    h("ul", { class: "plain", "data-testid": "your-seats" }, tables.map(row)),
    playerKey() ? pushOffer() : null,
  );
}
