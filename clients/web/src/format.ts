// Numbers and dates as the reader's browser writes them (its locale, through Intl): one
// place for each, so that a rating, its change and a date read alike on every page.
const wholeNumber = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const signedNumber = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0, signDisplay: "exceptZero" });
const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const dayAndTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** 1523.4 -> "1,523" (en-US), "1.523" (de-DE). */
export function whole(n: number): string {
  return wholeNumber.format(n);
}

/** A change, rounded as whole numbers are: "+12", "-144"; "±0" when it rounds to nothing. */
export function signedWhole(n: number): string {
  return Math.round(n) === 0 ? "±0" : signedNumber.format(n);
}

/** A date: "Dec 7, 2026" (en-US), "7 Dec 2026" (en-GB), "07.12.2026" (de-DE). */
export function dateText(ms: number): string {
  return day.format(ms);
}

/** A date and its time of day, as dateText with the hours and minutes. */
export function dateTimeText(ms: number): string {
  return dayAndTime.format(ms);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const AGE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", Infinity],
];

/** How long ago, in the largest whole unit: "3 minutes ago" (en), "vor 3 Minuten" (de). */
export function agoText(ms: number, now: number = Date.now()): string {
  let amount = Math.max(0, (now - ms) / 1000);
  for (const [unit, size] of AGE_STEPS) {
    if (amount < size) return relative.format(-Math.floor(amount), unit);
    amount /= size;
  }
  return relative.format(-Math.floor(amount), "day");
}
