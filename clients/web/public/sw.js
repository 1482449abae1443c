// tavola's service worker: a push from the gateway (gateway/turns.py: {kind, title, body,
// table_id, game, url}) becomes a notification, and is passed to every open tavola page.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  const url = new URL(typeof data.url === "string" && data.url.startsWith("#/") ? data.url : "#/", self.registration.scope).href;
  event.waitUntil(
    (async () => {
      const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const page of pages) page.postMessage(data);
      await self.registration.showNotification(data.title || "tavola", {
        body: data.body || "",
        tag: data.table_id ? `turn-${data.table_id}` : "tavola",
        data: { url },
      });
    })(),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data && event.notification.data.url;
  event.waitUntil(
    (async () => {
      const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const page of pages) {
        if ("focus" in page) {
          await page.focus();
          if (url && "navigate" in page) await page.navigate(url);
          return;
        }
      }
      if (url) await self.clients.openWindow(url);
    })(),
  );
});
