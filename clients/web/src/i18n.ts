// The page's words in the reader's language: a catalog per language (words/en.ts, it.ts,
// de.ts), each typed by the English one, so that a key missing in any language fails the
// build. The language is the one chosen with the switch (kept in localStorage), else the
// first of the browser's languages (navigator.languages) the page has, else English. A
// change re-renders the page (the "tavola-language" event) and is sent to the gateway with
// every call (the tavola-locale header, api.ts), which tells the games' events in it.
import { de } from "./words/de";
import { en, type Key } from "./words/en";
import { it } from "./words/it";

export type { Key };
export const LANGUAGES = { en, it, de } as const;
export type Language = keyof typeof LANGUAGES;
/** Each language by its own name, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", it: "Italiano", de: "Deutsch" };
const STORED = "tavola.language";

function known(tag: string | null | undefined): Language | undefined {
  const language = (tag ?? "").toLowerCase().split(/[-_]/)[0];
  return language in LANGUAGES ? (language as Language) : undefined;
}

function stored(): Language | undefined {
  try {
    return known(localStorage.getItem(STORED));
  } catch {
    return undefined;
  }
}

/** The switch's choice, else the browser's first language the page has, else English. */
export function chooseLanguage(chosen: string | null | undefined, browser: readonly string[]): Language {
  return known(chosen) ?? browser.map(known).find((l) => l !== undefined) ?? "en";
}

let current: Language = chooseLanguage(stored() ?? null, navigator.languages ?? [navigator.language]);
document.documentElement.lang = current;

export function language(): Language {
  return current;
}

/** Choose a language: kept for the next visit, set on <html lang>, and the page re-rendered. */
export function setLanguage(chosen: Language): void {
  current = chosen;
  document.documentElement.lang = chosen;
  try {
    localStorage.setItem(STORED, chosen);
  } catch {
    // A disabled storage: the choice holds for this page only.
  }
  window.dispatchEvent(new CustomEvent("tavola-language", { detail: chosen }));
}

/** The words of ``key`` in the chosen language, "{0}", "{1}" replaced by ``args``. */
export function t(key: Key, ...args: (string | number)[]): string {
  const template: string = LANGUAGES[current][key] ?? en[key];
  return template.replace(/\{(\d+)\}/g, (whole, index: string) => {
    const arg = args[Number(index)];
    return arg === undefined ? whole : typeof arg === "number" ? new Intl.NumberFormat(current).format(arg) : arg;
  });
}

/** The keys counted in forms: "players" of "players.one" and "players.other". */
type Counted<K = Key> = K extends `${infer Base}.one` ? Base : never;

/** A counted phrase: ``key`` ending ".one" or ".other" as the language's plural rule says. */
export function tn(key: Counted, count: number, ...args: (string | number)[]): string {
  const form = new Intl.PluralRules(current).select(count) === "one" ? "one" : "other";
  return t(`${key}.${form}` as Key, count, ...args);
}

/** The words of a key made from data (a game's enum name), else ``fallback``. */
export function tOr(key: string, fallback: string): string {
  return key in en ? t(key as Key) : fallback;
}
