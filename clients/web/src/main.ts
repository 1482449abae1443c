// tavola in the browser: #/ the lobby, #/table/<id> a table (as its seat when this browser
// holds its token), #/watch/<id> a table as a spectator.
import "./style.css";
import { fill, h } from "./dom";
import { Lobby } from "./lobby";
import { TablePage } from "./table";

interface Page {
  element(): HTMLElement;
  start(): Promise<void>;
  stop(): void;
}

const app = document.getElementById("app")!;
let current: Page | undefined;

function route(): void {
  current?.stop();
  const [, kind, id] = location.hash.match(/^#\/(table|watch)\/([\w-]+)/) ?? [];
  current = kind ? new TablePage(id, kind === "watch") : new Lobby();
  fill(app, h("header", { class: "site" }, h("a", { href: "#/", class: "brand" }, "tavola")), current.element());
  void current.start();
}

window.addEventListener("hashchange", route);
route();
