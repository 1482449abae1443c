// The games and bots the gateway offers, asked once a page.
import { gateway } from "./api";
import type { BotDescription } from "./gen/tavola/gateway/v1/gateway_pb";
import type { GameDescription } from "./gen/tavola/rules/v1/rules_pb";

let games: Promise<GameDescription[]> | undefined;
const bots = new Map<string, Promise<BotDescription[]>>();

export function listGames(): Promise<GameDescription[]> {
  games ??= gateway.listGames({}).then((response) => response.games);
  return games;
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
