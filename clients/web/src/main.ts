// tavola in the browser: #/ the lobby, #/table/<id> a table (as its seat when this browser
// holds its token), #/watch/<id> a table as a spectator, #/quick quick play, #/me the
// player this browser plays as, #/leaderboard/<game> a game's board, #/player/<id> a
// player's page, #/friends whom the player follows and blocks, and invitations, #/learn/<game>
// how to play a game.
import "./style.css";
import { LeaderboardPage, PlayerPage } from "./boards";
import { fill, h } from "./dom";
import { LearnPage } from "./help";
import { LANGUAGE_NAMES, language, setLanguage, t, type Language } from "./i18n";
import { Lobby } from "./lobby";
import { MePage } from "./me";
import { listenForTurns, registerWorker } from "./push";
import { QuickPlayPage } from "./quick";
import { FriendsPage, SocialLink } from "./social";
import { playerKey } from "./storage";
import { TablePage } from "./table";

interface Page {
  element(): HTMLElement;
  start(): Promise<void>;
  stop(): void;
}

const app = document.getElementById("app")!;
let current: Page | undefined;
// Presence and invitations, on every page, while this browser holds a player.
const socialLink = new SocialLink();

function decoded(part: string | undefined): string | undefined {
  if (!part) return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

function page(hash: string): { page: Page; section: string } {
  const [, kind, id] = hash.match(/^#\/(table|watch)\/([\w-]+)/) ?? [];
  if (kind) return { page: new TablePage(id, kind === "watch"), section: "" };
  const [, name, rest] = hash.match(/^#\/(quick|me|leaderboard|player|friends|learn)(?:\/([^/?#]*))?/) ?? [];
  switch (name) {
    case "quick":
      return { page: new QuickPlayPage(decoded(rest)), section: "quick" };
    case "me":
      return { page: new MePage(), section: "me" };
    case "learn":
      return { page: new LearnPage(decoded(rest)), section: "" };
    case "friends":
      return { page: new FriendsPage(), section: "friends" };
    case "leaderboard":
      return { page: new LeaderboardPage(decoded(rest)), section: "leaderboard" };
    case "player": {
      const playerId = decoded(rest);
      if (playerId) return { page: new PlayerPage(playerId), section: "" };
      return { page: new MePage(), section: "me" };
    }
    default:
      return { page: new Lobby(), section: "lobby" };
  }
}

function nav(section: string): HTMLElement {
  const me = playerKey();
  const link = (href: string, id: string, label: string | HTMLElement[]) =>
    h("a", { href, class: "nav-link", "aria-current": section === id ? "page" : undefined, "data-testid": `nav-${id}` }, label);
  return h(
    "header",
    { class: "site" },
    h("a", { href: "#/", class: "brand" }, "tavola"),
    h(
      "nav",
      { "aria-label": t("nav.site") },
      link("#/", "lobby", t("nav.lobby")),
      link("#/quick", "quick", t("nav.quick")),
      link("#/leaderboard", "leaderboard", t("nav.leaderboards")),
      me ? link("#/friends", "friends", t("nav.friends")) : null,
      link("#/me", "me", me ? [h("span", { class: "nav-name" }, me.name || t("nav.me"))] : t("nav.me")),
    ),
    languageSwitch(),
  );
}

/** The language switch: each language by its own name; a choice re-renders the page. */
function languageSwitch(): HTMLElement {
  const select = h(
    "select",
    { id: "language", "data-testid": "language", onchange: () => setLanguage(select.value as Language) },
    Object.entries(LANGUAGE_NAMES).map(([code, name]) => h("option", { value: code, lang: code }, name)),
  );
  select.value = language();
  return h("span", { class: "language" }, h("label", { for: "language", class: "visually-hidden" }, t("language.label")), select);
}

function route(): void {
  current?.stop();
  const chosen = page(location.hash);
  current = chosen.page;
  fill(app, nav(chosen.section), socialLink.element(), current.element());
  socialLink.at(location.hash.match(/^#\/table\/([\w-]+)/)?.[1] ?? "");
  void current.start();
}

window.addEventListener("hashchange", route);
// Told of a turn by a push while a page is open: a line above the page, to the table.
const told = h("p", { class: "turn-told", role: "status", "data-testid": "turn-told" });
told.hidden = true;
document.body.prepend(told);
listenForTurns(told);
void registerWorker();
// The name in the header follows a player made, renamed or forgotten on any page.
window.addEventListener("tavola-player", () => {
  app.querySelector("header.site")?.replaceWith(nav(location.hash.match(/^#\/(\w+)/)?.[1] ?? "lobby"));
  socialLink.start();
});
socialLink.start();
// Another language: the whole page again, in its words (the gateway's too: api.ts).
window.addEventListener("tavola-language", route);
route();
