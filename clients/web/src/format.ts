// Numbers and dates as the reader's language writes them (the page's language, i18n.ts,
// through Intl): one place for each, so that a rating, its change and a date read alike on
// every page, and a switch of language rewrites them all.
import { language } from "./i18n";

type Formats = {
  whole: Intl.NumberFormat;
  signed: Intl.NumberFormat;
  day: Intl.DateTimeFormat;
  dayAndTime: Intl.DateTimeFormat;
  relative: Intl.RelativeTimeFormat;
};
const formats = new Map<string, Formats>();

function inLanguage(): Formats {
  const locale = language();
  let found = formats.get(locale);
  if (!found) {
    found = {
      whole: new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }),
      signed: new Intl.NumberFormat(locale, { maximumFractionDigits: 0, signDisplay: "exceptZero" }),
      day: new Intl.DateTimeFormat(locale, { dateStyle: "medium" }),
      dayAndTime: new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }),
      relative: new Intl.RelativeTimeFormat(locale, { numeric: "auto" }),
    };
    formats.set(locale, found);
  }
  return found;
}

/** 1523.4 -> "1,523" (en), "1.523" (de, it). */
export function whole(n: number): string {
  return inLanguage().whole.format(n);
}

/** A change, rounded as whole numbers are: "+12", "-144"; "±0" when it rounds to nothing. */
export function signedWhole(n: number): string {
  return Math.round(n) === 0 ? "±0" : inLanguage().signed.format(Math.round(n));
}

/** A date: "Dec 7, 2026" (en), "7 dic 2026" (it), "07.12.2026" (de). */
export function dateText(ms: number): string {
  return inLanguage().day.format(ms);
}

/** A date and its time of day, as dateText with the hours and minutes. */
export function dateTimeText(ms: number): string {
  return inLanguage().dayAndTime.format(ms);
}

const AGE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", Infinity],
];

/** How long ago, in the largest whole unit: "3 minutes ago" (en), "vor 3 Minuten" (de). */
export function agoText(ms: number, now: number = Date.now()): string {
  const relative = inLanguage().relative;
  let amount = Math.max(0, (now - ms) / 1000);
  for (const [unit, size] of AGE_STEPS) {
    if (amount < size) return relative.format(-Math.floor(amount), unit);
    amount /= size;
  }
  return relative.format(-Math.floor(amount), "day");
}
