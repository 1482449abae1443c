// Who is who at a table: short names for seats (a bot as its name and level, the whole
// bot string on hover), "you" for the viewer, and seat numbers in game words replaced by
// names.
import { h } from "./dom";
import type { BotDescription, Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { SeatKind } from "./gen/tavola/gateway/v1/gateway_pb";
import { ratingText, type SeatRating } from "./ratings";
import { t, tOr } from "./i18n";

/** A bot's level ("expert", "strong", "casual", "random") in the page's language. */
export function levelText(code: string): string {
  return tOr(`level.${code}`, code);
}

/** A bot's level, from its 0-100 strength hint (levelText says it). */
export function level(strength: number): string {
  if (strength >= 80) return "expert";
  if (strength >= 50) return "strong";
  if (strength >= 20) return "casual";
  return "random";
}

/** A bot seat's name, as the gateway names it in event text: "ismcts", "ismcts L8" with a level option. */
export function botDisplayName(spec: string): string {
  const [name, options = ""] = spec.split(/:(.*)/s);
  const level = options
    .split(",")
    .map((item) => item.split("="))
    .find(([key]) => key.trim() === "level")?.[1]
    ?.trim();
  return level ? `${name.trim()} L${level}` : name.trim();
}

/**
 * A seat as people read its number: counted from 1, "Seat 1" for the API's seat 0 (as the
 * gateway's event text and the terminal write it). Capitalized, so that it is never read
 * again as game words' 0-based "seat N".
 */
export function seatLabel(seat: number): string {
  return `Seat ${seat + 1}`;
}

export class Seats {
  readonly names = new Map<number, string>();
  readonly hints = new Map<number, string>();
  readonly levels = new Map<number, string>();

  constructor(
    readonly table: Table,
    readonly me: number | undefined,
    bots: Map<string, BotDescription>,
    readonly ratings: Map<number, SeatRating> = new Map(),
  ) {
    const raw = new Map<number, string>();
    for (const seat of table.seats) {
      if (seat.kind === SeatKind.BOT && seat.bot) {
        const name = botDisplayName(seat.bot);
        const bot = bots.get(seat.bot.split(":")[0]);
        // A person's seat that the decision timer gave to a bot keeps the person's name.
        const person = seat.displayName && seat.displayName !== name ? seat.displayName : "";
        raw.set(seat.seat, person ? `${person} (${name})` : name);
        if (bot) this.levels.set(seat.seat, level(bot.strength));
        const strength = bot ? ` · strength ${bot.strength}/100${bot.strengthNote ? ` (${bot.strengthNote})` : ""}` : "";
        const whose = person ? ` (${person}'s seat, taken over when their decision time ran out)` : "";
        this.hints.set(seat.seat, `Bot: ${seat.bot}${whose}${strength}`);
      } else {
        raw.set(seat.seat, seat.displayName || seatLabel(seat.seat));
        this.hints.set(seat.seat, seat.taken ? `${seatLabel(seat.seat)}: a person` : `${seatLabel(seat.seat)}: free`);
      }
    }
    // The same name twice: told apart by seat number, as the gateway's event text does.
    const counts = new Map<string, number>();
    for (const name of raw.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [seat, name] of raw) {
      this.names.set(seat, (counts.get(name) ?? 0) > 1 ? `${name} ${seat + 1}` : name);
    }
  }

  /** The seat's short name. */
  name(seat: number): string {
    return this.names.get(seat) ?? seatLabel(seat);
  }

  /** The seat as a sentence's subject: "You" for the viewer. */
  who(seat: number): string {
    return seat === this.me ? "You" : this.name(seat);
  }

  /** A seat's name as an element: "(you)" marked, the full bot string on hover. */
  tag(seat: number): HTMLElement {
    return h(
      "span",
      { class: seat === this.me ? "who me" : "who", title: this.hints.get(seat) ?? "" },
      this.name(seat),
      this.levels.has(seat) ? h("span", { class: "level" }, this.levels.get(seat) === "random" ? t("rows.bot-plain") : t("rows.bot-level", levelText(this.levels.get(seat) ?? ""))) : null,
      seat === this.me ? h("span", { class: "you" }, t("names.you-marked")) : null,
    );
  }

  /** The seat's rating at this game as a link to its player's page, when it has one. */
  rating(seat: number): HTMLElement | null {
    const found = this.ratings.get(seat);
    if (!found) return null;
    const { rating, playerId } = found;
    const games = `${rating.games} rated game${rating.games === 1 ? "" : "s"}${rating.provisional ? ", provisional" : ""}`;
    return h(
      "a",
      {
        class: "rating",
        href: `#/player/${encodeURIComponent(playerId)}`,
        "data-testid": `rating-${seat}`,
        title: `Rating ${ratingText(rating)} (± one standard deviation), ${games}: open the player's page`,
        // Its name holds its visible text as written, so that a person who says what they
        // see ("click 1523 ± 210") finds it.
        "aria-label": `${this.name(seat)}'s rating: ${ratingText(rating)}; ${games}`,
      },
      ratingText(rating),
    );
  }

  /** Game words with "seat 2" written as the seat's name. */
  text(words: string): string {
    return words.replace(/\bseat (\d+)\b/g, (_, n: string) => {
      const seat = Number(n);
      return seat === this.me ? "you" : this.name(seat);
    });
  }
}
