// A game's help, from its own catalog (GatewayService.GetGameHelp, in the reader's
// language): the rules panel of the table page, the explanation of each choice beside the
// choices, a card's effect, a role's goal. An action's help ids follow common/help.py:
// "help.action.<kind>" (the Action oneof's field), "help.card.<card>" for "play_<card>",
// and "help.<section>.<value>" for a field of an enum of ENUM_SECTIONS. Text nodes only.
// The help is asked in the page's language and kept per language; its titles are the
// page's own words (words/*.ts, "learn.*").
import type { DescEnum } from "@bufbuild/protobuf";
import { reflect, isReflectList, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import type { Any } from "@bufbuild/protobuf/wkt";
import { failure, gateway, schemaOf, unpack } from "./api";
import { listGames } from "./catalog";
import { fill, h } from "./dom";
import { language, t } from "./i18n";
import type { Choice } from "./menu";
import type { LegalAction } from "./gen/tavola/rules/v1/rules_pb";

type Help = Map<string, string>;

const ENUM_SECTIONS: Record<string, string> = { Face: "face", ActionKind: "face", Effect: "effect", ActionCardKind: "card" };
const loaded = new Map<string, Help>();
const asked = new Map<string, Promise<Help>>();
let panelOpen = false; // the rules panel stays as the reader left it across redraws

/** The game's help in the page's language, asked once a page and language; empty when the
 * gateway has none to give. */
export function loadHelp(gameId: string): Promise<Help> {
  const key = `${language()}/${gameId}`;
  let found = asked.get(key);
  if (!found) {
    found = gateway
      .getGameHelp({ gameId })
      .then((response) => new Map(response.entries.map((entry) => [entry.id, entry.text])))
      .catch(() => new Map<string, string>());
    void found.then((help) => loaded.set(key, help));
    asked.set(key, found);
  }
  return found;
}

/** The help already loaded (loadHelp) in the page's language, else none. */
export function helpOf(gameId: string): Help {
  return loaded.get(`${language()}/${gameId}`) ?? new Map();
}

/** FACE_BRIBE -> bribe; undefined for the unspecified value. */
export function enumKey(desc: DescEnum, value: number): string | undefined {
  const member = desc.values.find((v) => v.number === value);
  if (!member || value === 0) return undefined;
  const prefix = `${desc.name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}_`;
  return member.name.startsWith(prefix) ? member.name.slice(prefix.length).toLowerCase() : member.name.toLowerCase();
}

/** The help ids that explain one legal action, most general first. */
export function helpIds(any: Any | undefined): string[] {
  const schema = schemaOf(any);
  const message = unpack(any);
  const oneof = schema?.oneofs[0];
  if (!schema || !message || !oneof) return [];
  const ref = reflect(schema, message);
  const chosen = ref.oneofCase(oneof);
  if (!chosen) return [];
  const ids = [`help.action.${chosen.name}`];
  if (chosen.name.startsWith("play_")) ids.push(`help.card.${chosen.name.slice(5)}`);
  if (chosen.fieldKind === "message") {
    const body = ref.get(chosen) as ReflectMessage;
    for (const field of body.fields) {
      const desc = field.fieldKind === "enum" ? field.enum : field.fieldKind === "list" && field.listKind === "enum" ? field.enum : undefined;
      const section = desc && ENUM_SECTIONS[desc.name];
      if (!desc || !section) continue;
      const value = body.get(field);
      const numbers = isReflectList(value) ? Array.from(value as Iterable<number>) : [value as number];
      for (const n of numbers) {
        const key = enumKey(desc, n);
        if (key) ids.push(`help.${section}.${key}`);
      }
    }
  }
  return [...new Set(ids)];
}

function leaves(choice: Choice): number[] {
  return choice.index !== undefined ? [choice.index] : choice.children.flatMap(leaves);
}

/** What the choices of a menu's level do, each explanation once: the list beside them
 * (every choice button is described by it); null when the game has no help. */
export function choicesHelp(gameId: string, legal: LegalAction[], level: Choice[]): HTMLElement | null {
  const help = helpOf(gameId);
  const said = new Set<string>();
  for (const index of level.flatMap(leaves)) {
    for (const id of helpIds(legal[index]?.action)) {
      const text = help.get(id);
      if (text) said.add(text);
    }
  }
  if (!said.size) return null;
  return h("ul", { class: "choice-help small", id: "choice-help", "data-testid": "choice-help", "aria-label": t("learn.choices") }, [...said].map((text) => h("li", {}, text)));
}

function section(title: string, texts: string[]): HTMLElement | null {
  return texts.length ? h("section", {}, h("h3", {}, title), h("ul", {}, texts.map((text) => h("li", {}, text)))) : null;
}

function starting(help: Help, prefix: string, skip = (_id: string) => false): string[] {
  return [...help].filter(([id]) => id.startsWith(prefix) && !id.endsWith(".goal") && !skip(id)).map(([, text]) => text);
}

/** Each role (a "help.role.<role>" with its ".goal") as a row: the role, its goal. */
export function rolesTable(help: Help): HTMLElement | null {
  const rows = [...help].filter(([id]) => id.startsWith("help.role.") && help.has(`${id}.goal`));
  if (!rows.length) return null;
  return h(
    "table",
    { class: "roles-help", "data-testid": "roles-help" },
    h("caption", {}, t("learn.roles-goals")),
    h("tr", {}, h("th", { scope: "col" }, t("learn.role")), h("th", { scope: "col" }, t("learn.goal"))),
    rows.map(([id, text]) => h("tr", {}, h("td", {}, text), h("td", {}, help.get(`${id}.goal`) ?? ""))),
  );
}

/** The rules panel: the game in short, its goal, and what every action, card, face,
 * effect and role does; folded until opened (by click, tap or keyboard), or open. */
export function rulesPanel(gameId: string, open = false): HTMLElement | null {
  const help = helpOf(gameId);
  if (!help.size) return null;
  const panel = h(
    "details",
    { class: "panel rules-help", "data-testid": "rules-help" },
    h("summary", {}, t("learn.title")),
    help.get("help.rules") ? h("p", {}, help.get("help.rules")) : null,
    help.get("help.goal") ? h("p", {}, help.get("help.goal")) : null,
    rolesTable(help),
    section(t("learn.roles"), starting(help, "help.role.", (id) => help.has(`${id}.goal`))),
    section(t("learn.actions"), starting(help, "help.action.", (id) => help.has(`help.card.${id.slice(17)}`))),
    section(t("learn.cards"), starting(help, "help.card.")),
    section(t("learn.romans"), starting(help, "help.roman.")),
    section(t("learn.faces"), starting(help, "help.face.")),
    section(t("learn.effects"), starting(help, "help.effect.")),
    section(t("learn.specials"), starting(help, "help.special.")),
    section(t("learn.variants"), starting(help, "help.variant.")),
  ) as HTMLDetailsElement;
  panel.open = open || panelOpen;
  panel.addEventListener("toggle", () => (panelOpen = panel.open));
  return panel;
}

/** What one value of an enum does ("help.<section>.<value>": a Mortadella effect), if told. */
export function termHelp(gameId: string, section: string, desc: DescEnum, value: number): string | undefined {
  const key = enumKey(desc, value);
  return key ? helpOf(gameId).get(`help.${section}.${key}`) : undefined;
}

/** A role's goal in the game's words ("help.role.<role>.goal"), when the game has one. */
export function roleGoal(gameId: string, desc: DescEnum, value: number): string | undefined {
  const key = enumKey(desc, value);
  return key ? helpOf(gameId).get(`help.role.${key}.goal`) : undefined;
}

/** What the cards of a hand do ("help.card.<card>"), each kind once; null for none. */
export function cardsHelp(gameId: string, desc: DescEnum, kinds: number[]): HTMLElement | null {
  const help = helpOf(gameId);
  const texts = [...new Set(kinds.map((kind) => help.get(`help.card.${enumKey(desc, kind) ?? ""}`)).filter((text): text is string => !!text))];
  return texts.length ? h("ul", { class: "cards-help", "data-testid": "cards-help" }, texts.map((text) => h("li", {}, text))) : null;
}

/** #/learn/<game>: a game's help on a page of its own, reached from the lobby. */
export class LearnPage {
  private readonly root = h("main", { class: "learn" });

  constructor(private readonly gameId: string | undefined) {}

  element(): HTMLElement {
    return this.root;
  }

  stop(): void {}

  async start(): Promise<void> {
    try {
      const game = (await listGames()).find((g) => g.gameId === this.gameId);
      if (!game) {
        fill(this.root, h("h1", {}, t("learn.title")), h("p", {}, t("learn.no-game")), h("a", { href: "#/" }, t("table.back")));
        return;
      }
      await loadHelp(game.gameId);
      const panel = rulesPanel(game.gameId, true) ?? h("p", {}, t("learn.no-help"));
      fill(this.root, h("h1", {}, t("learn.title-of", game.displayName)), h("p", {}, game.summary), panel, h("p", {}, h("a", { href: "#/" }, t("table.back"))));
    } catch (error) {
      fill(this.root, h("h1", {}, t("learn.title")), h("p", { class: "error", role: "alert" }, t("lobby.no-gateway", failure(error))));
    }
  }
}
