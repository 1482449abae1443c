// Web Push: the service worker (public/sw.js) shows "Your turn" when a table waits for this
// browser's player; with the player's consent the browser subscribes and the gateway keeps
// the subscription (TurnService.AddPushSubscription).
import { failure, turns } from "./api";
import { h } from "./dom";
import { t } from "./i18n";
import { asPlayer, playerKey } from "./storage";

function b64url(buffer: ArrayBuffer | null): string {
  const bytes = new Uint8Array(buffer ?? new ArrayBuffer(0));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** Registers the service worker (once a page load) where the browser has them. */
export async function registerWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!("serviceWorker" in navigator)) return undefined;
  try {
    return await navigator.serviceWorker.register("./sw.js");
  } catch {
    return undefined; // not over https nor on this machine: no notifications
  }
}

/** Asks the player, subscribes, and hands the subscription to the gateway. */
export async function subscribe(): Promise<string> {
  const registration = await registerWorker();
  if (!registration || !("PushManager" in window)) return t("push.cannot");
  if ((await Notification.requestPermission()) !== "granted") return t("push.off");
  const { publicKey } = await turns.getPushKey({});
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64url(publicKey) });
  await turns.addPushSubscription(
    { endpoint: subscription.endpoint, p256dh: b64url(subscription.getKey("p256dh")), auth: b64url(subscription.getKey("auth")) },
    asPlayer(),
  );
  return t("push.on");
}

/** The offer under "Your seats": a button that subscribes, and what came of it. */
export function pushOffer(): HTMLElement {
  const said = h("span", { class: "small", role: "status", "data-testid": "push-status" });
  const button = h("button", { type: "button", class: "secondary", "data-testid": "push-subscribe" }, t("push.offer"));
  button.addEventListener("click", () => {
    said.textContent = "…";
    subscribe().then(
      (words) => (said.textContent = words),
      (error: unknown) => (said.textContent = t("push.not-subscribed", failure(error))),
    );
  });
  return h("p", { class: "push-offer" }, button, " ", said);
}

/** A turn told on the open page: a line above it, linking to the table (not while at it). */
function show(shown: HTMLElement, text: string, url: string): void {
  if (location.hash === url) return;
  shown.replaceChildren(h("a", { href: url.startsWith("#/table/") ? url : "#/" }, text));
  shown.hidden = false;
}

/** Turns while a page is open: pushes the worker passes on, and with a player the
 * gateway's WatchMyTurns stream (each table as it becomes the player's turn). */
export function listenForTurns(shown: HTMLElement): void {
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
      const data = event.data as { kind?: string; body?: string; url?: string } | undefined;
      if (data?.kind === "your_turn") show(shown, data.body ?? t("push.your-turn"), data.url ?? "#/");
    });
  }
  void followTurns(shown);
}

let following: AbortController | undefined;

/** Holds WatchMyTurns for this browser's player (again after a drop, or a new player). */
async function followTurns(shown: HTMLElement): Promise<void> {
  following?.abort();
  const abort = (following = new AbortController());
  window.addEventListener("tavola-player", () => void followTurns(shown), { once: true });
  let delay = 1000;
  while (!abort.signal.aborted && playerKey()) {
    try {
      for await (const response of turns.watchMyTurns({}, { ...asPlayer(), signal: abort.signal })) {
        const mine = response.table;
        const table = mine?.table;
        if (!mine || !table) continue;
        const others = table.seats.filter((s) => s.seat !== mine.seat).map((s) => s.displayName);
        const url = `#/table/${table.tableId}`;
        show(shown, others.length ? t("push.your-turn-with", mine.gameName, others.join(", ")) : t("push.your-turn-at", mine.gameName), url);
        delay = 1000;
      }
    } catch {
      // A drop, or the player's token revoked: tried again a little later.
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 60_000);
  }
}

/** The player page's "Your turn" panel: notifications in this browser, and the daily digest. */
export function notificationPanel(): HTMLElement {
  const email = h("input", { id: "digest-email", type: "email", autocomplete: "email", maxlength: "254", placeholder: "you@example.org" });
  const said = h("p", { class: "small", role: "status", "data-testid": "digest-status" });
  const save = (event: Event) => {
    event.preventDefault();
    const address = email.value.trim();
    turns.setDigest({ email: address }, asPlayer()).then(
      (answer) => (said.textContent = answer.enabled ? t("push.digest-on", address) : t("push.digest-off")),
      (error: unknown) => (said.textContent = t("push.not-saved", failure(error))),
    );
  };
  return h(
    "form",
    { class: "panel", "aria-labelledby": "turns-title", onsubmit: save },
    h("h2", { id: "turns-title" }, t("push.title")),
    pushOffer(),
    h("p", { class: "small" }, t("push.digest-about")),
    h("label", { for: "digest-email" }, t("push.email")),
    email,
    " ",
    h("button", { type: "submit", "data-testid": "digest-save" }, t("push.save")),
    said,
  );
}
