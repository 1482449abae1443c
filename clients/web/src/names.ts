// Who is who at a table: short names for seats (a bot as its name and level, the whole
// bot string on hover), "you" for the viewer, and seat numbers in game words replaced by
// names.
import { h } from "./dom";
import type { BotDescription, Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { SeatKind } from "./gen/tavola/gateway/v1/gateway_pb";

/** A bot's level in words, from its 0-100 strength hint. */
export function level(strength: number): string {
  if (strength >= 80) return "expert";
  if (strength >= 50) return "strong";
  if (strength >= 20) return "casual";
  return "random";
}

export function botName(spec: string): string {
  return spec.split(":")[0];
}

export class Seats {
  readonly names = new Map<number, string>();
  readonly hints = new Map<number, string>();

  constructor(
    readonly table: Table,
    readonly me: number | undefined,
    bots: Map<string, BotDescription>,
  ) {
    const raw = new Map<number, string>();
    for (const seat of table.seats) {
      if (seat.kind === SeatKind.BOT) {
        const name = botName(seat.bot);
        const bot = bots.get(name);
        const rank = bot ? level(bot.strength) : "";
        raw.set(seat.seat, rank && rank !== name ? `${name} · ${rank}` : `${name} bot`);
        this.hints.set(
          seat.seat,
          `Bot: ${seat.bot}${bot ? ` · strength ${bot.strength}/100 ${bot.strengthNote ? `(${bot.strengthNote})` : ""}` : ""}`,
        );
      } else {
        raw.set(seat.seat, seat.displayName.trim() || (seat.taken ? `player ${seat.seat + 1}` : "open seat"));
        this.hints.set(seat.seat, seat.taken ? `Seat ${seat.seat}: a person` : `Seat ${seat.seat}: free`);
      }
    }
    const counts = new Map<string, number>();
    for (const name of raw.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [seat, name] of raw) {
      this.names.set(seat, (counts.get(name) ?? 0) > 1 ? `${name} #${seat + 1}` : name);
    }
  }

  /** The seat's short name. */
  name(seat: number): string {
    return this.names.get(seat) ?? `seat ${seat}`;
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
      seat === this.me ? h("span", { class: "you" }, " (you)") : null,
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
