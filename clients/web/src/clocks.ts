// A table's per-seat clock (clocks.proto): each seat's time left, shown beside its name.
import { h } from "./dom";
import type { Table } from "./gen/tavola/gateway/v1/gateway_pb";
import { t } from "./i18n";

/** "2d 4h", "3h 05m", "4:59": a time left, coarser as it grows. */
export function span(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days) return `${days}d ${hours}h`;
  if (hours) return `${hours}h ${String(minutes).padStart(2, "0")}m`;
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A seat's time left: while it decides, to its deadline; otherwise what its clock holds. */
export function timeLeft(table: Table, seat: number, now = Date.now()): number | undefined {
  const clock = table.clock;
  if (!clock || seat >= clock.remainingMs.length) return undefined;
  const deadline = Number(clock.deadlineUnixMs[seat] ?? 0n);
  return deadline ? deadline - now : Number(clock.remainingMs[seat]);
}

export function seatClock(table: Table, seat: number): HTMLElement | null {
  const left = timeLeft(table, seat);
  if (left === undefined) return null;
  const running = Number(table.clock?.deadlineUnixMs[seat] ?? 0n) > 0;
  return h("span", { class: `seat-clock${running ? " running" : ""}`, "data-testid": `clock-${seat}`, title: running ? t("clock.running") : t("clock.stopped") }, ` ⏱ ${span(left)}`);
}

/** Each running seat clock under ``root`` shows its time left now (the page's tick). */
export function tickClocks(root: HTMLElement, table: Table): void {
  for (const element of root.querySelectorAll<HTMLElement>(".seat-clock.running")) {
    const seat = Number(element.dataset.testid?.slice("clock-".length));
    const left = timeLeft(table, seat);
    if (left !== undefined) element.textContent = ` ⏱ ${span(left)}`;
  }
}
