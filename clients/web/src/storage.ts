// What the browser keeps: the player's name, and per table the seat token (the only key to
// the seat, shown once by TakeSeat) and the events seen so far, so a reload resumes the
// stream after the last one with nothing lost and nothing shown twice.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { TableEventSchema, type TableEvent } from "./gen/tavola/gateway/v1/gateway_pb";
import { language } from "./i18n";

const PREFIX = "tavola.";

export interface SeatKey {
  seat: number;
  token: string;
}

function read<T>(key: string): T | undefined {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  } catch {
    return undefined;
  }
}

function write(key: string, value: unknown): void {
  try {
    localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // A full or disabled storage: the page still plays, a reload just starts the log over.
  }
}

export function playerName(): string {
  return read<string>("name") ?? "";
}

export function setPlayerName(name: string): void {
  write("name", name);
}

export function seatKey(tableId: string): SeatKey | undefined {
  return read<SeatKey>(`seat.${tableId}`);
}

export function keepSeat(tableId: string, key: SeatKey): void {
  write(`seat.${tableId}`, key);
}

/** The tables this browser holds a seat at, for the lobby's "your tables". */
export function seatedTables(): string[] {
  const ids: string[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) ?? "";
    if (key.startsWith(`${PREFIX}seat.`)) ids.push(key.slice(PREFIX.length + 5));
  }
  return ids;
}

/** A table's events as read in one language: another language reads the log again. */
function logKey(tableId: string, seat: number | undefined): string {
  return `log.${tableId}.${seat ?? "spectator"}.${language()}`;
}

export function loadLog(tableId: string, seat: number | undefined): TableEvent[] {
  const stored = read<string[]>(logKey(tableId, seat)) ?? [];
  try {
    return stored.map((item) => fromBinary(TableEventSchema, base64Decode(item)));
  } catch {
    return [];
  }
}

export function saveLog(tableId: string, seat: number | undefined, events: TableEvent[]): void {
  write(
    logKey(tableId, seat),
    events.map((event) => base64Encode(toBinary(TableEventSchema, event))),
  );
}

/** The player this browser plays as (PlayerService): its secret token, id and name. */
export interface PlayerKey {
  token: string;
  playerId: string;
  name: string;
}

/** The player id inside a player token ("p.<player id>.<secret>"), or undefined. */
export function playerIdOf(token: string): string | undefined {
  const match = /^p\.([^.]+)\.(.+)$/.exec(token.trim());
  return match ? match[1] : undefined;
}

export function playerKey(): PlayerKey | undefined {
  const key = read<PlayerKey>("player");
  return key && typeof key.token === "string" && typeof key.playerId === "string" ? key : undefined;
}

export function keepPlayer(key: PlayerKey): void {
  write("player", key);
  setPlayerName(key.name);
  window.dispatchEvent(new Event("tavola-player"));
}

export function forgetPlayer(): void {
  try {
    localStorage.removeItem(`${PREFIX}player`);
  } catch {
    // A disabled storage held nothing.
  }
  window.dispatchEvent(new Event("tavola-player"));
}

/** Call options that seat the player this browser plays as (a guest's seat without one). */
export function asPlayer(): { headers?: Record<string, string> } {
  const key = playerKey();
  return key ? { headers: { authorization: `Bearer ${key.token}` } } : {};
}
