// What a game's page draws from: its typed view and event messages, and who sits where.
import type { Message } from "@bufbuild/protobuf";
import type { Table } from "../gen/tavola/gateway/v1/gateway_pb";
import type { Seats } from "../names";

export interface Ctx {
  table: Table;
  seats: Seats;
  me: number | undefined;
  /** The game's events this viewer has seen, decoded, oldest first. */
  events: Message[];
}

export interface GameRenderer {
  /** The board: everything the typed view shows, the viewer's own secrets first. */
  board(view: Message, ctx: Ctx): HTMLElement;
  /** Why the game ended and who won, from the final view; undefined: the outcome line only. */
  ending?(view: Message, ctx: Ctx): HTMLElement | undefined;
  /** An action's menu path (the last step names the action); undefined: grouped by words. */
  actionPath?(action: Message, label: string, ctx: Ctx): string[] | undefined;
  /** An event in words when the gateway sent none; undefined: the generic words. */
  eventText?(event: Message, ctx: Ctx): string | undefined;
}
