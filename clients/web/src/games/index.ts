import type { GameRenderer } from "./api";
import { borgia } from "./borgia";
import { generic } from "./generic";
import { mortadella } from "./mortadella";
import { pecunia } from "./pecunia";

const renderers: Record<string, GameRenderer> = { borgia, mortadella, pecunia };

/** The game's own renderer, or the generic one (also with ?renderer=generic). */
export function rendererFor(gameId: string): GameRenderer {
  if (new URLSearchParams(location.search).get("renderer") === "generic") return generic;
  return renderers[gameId] ?? generic;
}
