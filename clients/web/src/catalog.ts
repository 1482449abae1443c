// The games and bots the gateway offers, asked once a page (the games again in a new language).
import { gateway } from "./api";
import type { BotDescription, ListGamesResponse } from "./gen/tavola/gateway/v1/gateway_pb";
import type { GameDescription } from "./gen/tavola/rules/v1/rules_pb";

let catalog: Promise<ListGamesResponse> | undefined;
const bots = new Map<string, Promise<BotDescription[]>>();
// The games' summaries and options come in the page's language: asked again after a switch.
window.addEventListener("tavola-language", () => {
  catalog = undefined;
});

function gamesCatalog(): Promise<ListGamesResponse> {
  catalog ??= gateway.listGames({});
  return catalog;
}

export function listGames(): Promise<GameDescription[]> {
  return gamesCatalog().then((response) => response.games);
}

/** The decision timer the platform suggests for a table opened by hand (0: none). */
export function lobbyDecisionSeconds(): Promise<number> {
  return gamesCatalog().then((response) => response.lobbyDecisionSeconds);
}

/** The bots that play a game, strongest first ("" for every bot). */
export function listBots(gameId = ""): Promise<BotDescription[]> {
  let found = bots.get(gameId);
  if (!found) {
    found = gateway.listBots({ gameId }).then((response) => response.bots);
    bots.set(gameId, found);
  }
  return found;
}

export async function botsByName(gameId = ""): Promise<Map<string, BotDescription>> {
  return new Map((await listBots(gameId)).map((bot) => [bot.name, bot]));
}
