// Ratings as the gateway gives them (PlayerService.GetPlayer): a seat's participant is its
// player, else its bot's own rated player ("bot:<bot>"); a seat with neither (a guest) has
// no rating, and neither has a participant who has not played a rated game of this game.
import { players } from "./api";
import { whole } from "./format";
import { SeatKind, type Seat, type Table } from "./gen/tavola/gateway/v1/gateway_pb";
import type { Rating } from "./gen/tavola/gateway/v1/players_pb";

/** Whose result a seat's is: its player's, else its bot's; undefined for a guest. */
export function participant(seat: Seat): string | undefined {
  if (seat.playerId) return seat.playerId;
  if (seat.kind === SeatKind.BOT && seat.bot) return `bot:${seat.bot}`;
  return undefined;
}

/** "1523 ± 210": the rating and one standard deviation of it, rounded, in the browser's locale. */
export function ratingText(rating: { rating: number; uncertainty: number }): string {
  return `${whole(rating.rating)} ± ${whole(rating.uncertainty)}`;
}


/** "1st", "2nd", "3rd", "4th"... */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

export interface SeatRating {
  playerId: string;
  rating: Rating;
}

/** Each seat's rating at the table's game, for the seats whose participant has one. */
export async function seatRatings(table: Table): Promise<Map<number, SeatRating>> {
  const found = new Map<number, SeatRating>();
  const ids = new Map<string, Promise<Rating | undefined>>();
  for (const seat of table.seats) {
    const id = participant(seat);
    if (!id || ids.has(id)) continue;
    ids.set(
      id,
      players.getPlayer({ playerId: id, recentTables: 1 }).then(
        (page) => page.ratings.find((r) => r.gameId === table.gameId),
        () => undefined, // no page (a player unknown here): no rating shown
      ),
    );
  }
  for (const seat of table.seats) {
    const id = participant(seat);
    const rating = id ? await ids.get(id) : undefined;
    if (id && rating) found.set(seat.seat, { playerId: id, rating });
  }
  return found;
}
