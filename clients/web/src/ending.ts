// The table page's end: the headline (who won), why, the seed's check against the
// commitment shown from the deal on, and the links onward.
import type { Message } from "@bufbuild/protobuf";
import { h } from "./dom";
import { t, tn } from "./i18n";
import type { GameFinished, Table, TableEvent } from "./gen/tavola/gateway/v1/gateway_pb";
import type { Ctx, GameRenderer } from "./games/api";
import { verifySeed } from "./verify";

export type Verdict = "pending" | "verified" | "failed" | "unavailable";

/** The seed's check once the game is over: "pending" while its end event is still to come. */
export async function checkSeed(log: TableEvent[], table: Table | undefined): Promise<Verdict> {
  const finished = log.find((e) => e.body.case === "gameFinished")?.body.value as GameFinished | undefined;
  if (!finished) return "pending"; // the end was read before its event arrived: checked when it does
  const commitment = table?.seedCommitment;
  if (!finished.seedReveal || !commitment?.length) return "unavailable";
  const ok = await verifySeed(commitment, finished.seedReveal.seed, finished.seedReveal.salt);
  return ok ? "verified" : "failed";
}

/** The end of a game: who won and why, or why nobody played it out; the seed's check; where next.
 *  ``me``: this page's seat, if it plays one; ``view``: the last view of the board. */
export function endingPanel(table: Table, ctx: Ctx, log: TableEvent[], me: number | undefined, view: Message | undefined, renderer: GameRenderer | undefined, verdict: Verdict): HTMLElement {
  if (table.abandoned) {
    // Ended by the platform, not the game: its event says why; no winner, no seed to check.
    const why = [...log].reverse().find((event) => event.body.case === "tableAbandoned")?.text;
    const back = h("p", {}, h("a", { href: "#/" }, t("table.back")));
    const said = why ? h("p", { class: "summary", "data-testid": "why" }, why) : null;
    return h("section", { class: "panel ending", "data-testid": "ending", "aria-label": t("table.table-over") }, h("h2", { "data-testid": "headline" }, t("table.nobody-played")), said, back);
  }
  const winners = table.outcome?.winners ?? [];
  const headline =
    me !== undefined && winners.includes(me)
      ? winners.length > 1
        ? t("table.you-win-with", winners.filter((w) => w !== me).map((w) => ctx.seats.name(w)).join(", "))
        : t("table.you-win")
      : winners.length
        ? tn("table.wins", winners.length, winners.map((w) => ctx.seats.who(w)).join(t("table.and")))
        : t("table.nobody-wins");
  const why = [...log].reverse().find((event) => event.body.case === "gameEvent")?.text;
  const verdicts: Record<Verdict, string> = {
    pending: t("table.seed-pending"),
    verified: t("table.seed-verified"),
    failed: t("table.seed-failed"),
    unavailable: t("table.seed-unavailable"),
  };
  return h(
    "section",
    { class: "panel ending", "data-testid": "ending", "aria-label": t("table.game-over") },
    // As written: "You win!", "random 2 wins." (a name keeps its own case).
    h("h2", { "data-testid": "headline" }, headline),
    // Why, in the game's own words (its last event's text), else the outcome's one line.
    why ? h("p", { class: "summary", "data-testid": "why" }, why) : null,
    !why && table.outcome?.summary ? h("p", { class: "summary" }, ctx.seats.text(table.outcome.summary)) : null,
    view ? (renderer?.ending?.(view, ctx) ?? null) : null,
    h("p", { class: `verdict ${verdict}`, "data-testid": "seed-verdict" }, verdicts[verdict]),
    table.rated
      ? h(
          "p",
          { class: "small" },
          t("table.rated-game"),
          // A seat's player has a page of their own; a spectator has none at this table.
          me !== undefined ? [h("a", { href: "#/me" }, t("table.your-player")), t("table.and")] : null,
          t("table.the"),
          h("a", { href: `#/leaderboard/${encodeURIComponent(table.gameId)}` }, t("table.leaderboard")),
          ".",
        )
      : null,
    h("p", {}, h("a", { href: "#/" }, t("table.back")), me !== undefined ? [" · ", h("a", { href: "#/quick" }, t("table.quick-again"))] : null),
  );
}
