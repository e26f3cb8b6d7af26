// The Today view's page: one connection to the daemon through the program's event stream,
// one tile per enabled widget (or instance) with content, rendered from its snapshot.
// What a tile shows: an Adaptive Card (or a template expanded with the snapshot's data),
// an HTML widget in a sandboxed frame, or the text of a plain snapshot.
import { renderCard, checkedLink } from "./cards.js";
import { expandTemplate } from "./template.js";
import { Gallery, previewOf } from "./gallery.js";

const MAX_HEIGHT = { compact: 160, expanded: 400 };
const grid = document.getElementById("widgets");
const status = document.getElementById("status");
const tiles = new Map();
const waiting = new Map();
let session = null;
let nextId = 1;
let config = { instances: {} };
let listed = [];
let arrangement = [];

document.documentElement.lang = navigator.language || "en";
const darkQuery = matchMedia("(prefers-color-scheme: dark)");

// What a widget renders for (docs/PROTOCOL.md §6): sent with every pull, subscribe and visible.
function environment() {
  return { colorScheme: darkQuery.matches ? "dark" : "light", locale: navigator.language || "en", scale: window.devicePixelRatio || 1 };
}

// The messages sent in one task go in one request (a page load's subscriptions and pulls,
// two per tile, would otherwise queue for the browser's few connections to the program).
let outbox = null;
function send(message) {
  if (!session) return Promise.reject(new Error("not connected"));
  if (!outbox) {
    const batch = outbox = [];
    batch.sent = Promise.resolve().then(() => { outbox = null; return post(batch); });
  }
  outbox.push(message);
  return outbox.sent;
}

// One request within the program's bounds (256 messages, 64 KiB: 20,000 UTF-16 units are at
// most 60 KB); more go in several.
function post(messages) {
  const body = JSON.stringify(messages.length === 1 ? messages[0] : messages);
  if (messages.length > 1 && (messages.length > 256 || body.length > 20000)) {
    const half = Math.ceil(messages.length / 2);
    return post(messages.slice(0, half)).then(() => post(messages.slice(half)));
  }
  return fetch("/send?session=" + session, { method: "POST", headers: { "Content-Type": "application/json" }, body });
}

function request(message) {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ ...message, id }).catch(() => { waiting.delete(id); resolve({ type: "error", error: "not connected" }); });
  });
}

const events = new EventSource("/events");
events.addEventListener("session", (event) => {
  session = JSON.parse(event.data).session;
  status.textContent = "";
  for (const tile of tiles.values()) tile.element.remove();
  tiles.clear();
  send({ type: "list", id: nextId++, locale: environment().locale });
});
events.onmessage = (event) => handle(JSON.parse(event.data));
events.onerror = () => { status.textContent = "Reconnecting to extensiond…"; };

function handle(message) {
  if (message.id !== undefined && waiting.has(message.id)) {
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve(message);
    if (message.type !== "snapshot") return;
  }
  switch (message.type) {
    case "extensions": return showExtensions(message.extensions, message.arrangement);
    case "snapshot": return tiles.get(key(message.extension, message.instance))?.receive(message);
    case "hasContentChanged": return send({ type: "list", id: nextId++, locale: environment().locale });
    case "error": if (message.id === undefined) status.textContent = message.error; return;
  }
}

function key(extension, instance) { return extension + "\u0000" + (instance ?? ""); }

fetch("/config.json").then((answer) => answer.json()).then((value) => { config = value; showExtensions(listed); }).catch(() => {});

// The instances a widget is shown as: those given on the command line and those the user
// added; a widget with settings is shown only through its instances, others as themselves.
function targetsOf(info) {
  const instances = [...new Set([...(config.instances[info.id] ?? []), ...(info.instances ?? []).map((entry) => entry.instance)])];
  return instances.length || info.parameters?.length ? instances : [null];
}

// Tiles for the enabled widgets with content, in the user's arrangement, then in the listed
// order; others are removed.
function showExtensions(extensions, arranged = arrangement) {
  listed = extensions;
  arrangement = arranged ?? [];
  const rank = new Map(arrangement.map((entry, index) => [key(entry.extension, entry.instance), index]));
  const wanted = [];
  for (const info of extensions) {
    if (info.point !== "widget" || !info.enabled || !info.hasContent) continue;
    for (const instance of targetsOf(info)) {
      const k = key(info.id, instance);
      const tile = tiles.get(k) ?? new Tile(info, instance);
      tile.info = info;
      if (!tiles.has(k)) {
        tiles.set(k, tile);
        tile.start();
      }
      wanted.push(tile);
    }
  }
  const order = (tile) => rank.get(key(tile.info.id, tile.instance)) ?? arrangement.length + wanted.indexOf(tile);
  wanted.sort((a, b) => order(a) - order(b));
  for (const tile of wanted) { grid.append(tile.element); gallery.decorate(tile); }
  const kept = new Set(wanted);
  for (const [k, tile] of tiles) if (!kept.has(tile)) { tile.element.remove(); tiles.delete(k); }
  gallery.update(extensions);
}

// The tiles as the page shows them, first first.
function orderedTiles() {
  return [...grid.children].map((element) => element.tile).filter((tile) => tile && tiles.get(key(tile.info.id, tile.instance)) === tile);
}
const gallery = new Gallery({ request, tiles: orderedTiles, targetsOf });

class Tile {
  constructor(info, instance) {
    this.info = info;
    this.instance = instance;
    this.mode = "compact";
    this.snapshots = {};
    this.element = document.createElement("article");
    this.element.className = "tile";
    this.element.hidden = true;
    this.element.dataset.extension = info.id;
    if (instance) this.element.dataset.instance = instance;
    const header = document.createElement("header");
    this.title = document.createElement("span");
    this.title.className = "tile-title";
    const name = info.displayName ?? info.id;
    this.title.textContent = instance ? `${name} · ${instance}` : name;
    this.age = document.createElement("span");
    this.age.className = "tile-age";
    this.loadingMark = document.createElement("span");
    this.loadingMark.className = "tile-loading-mark";
    this.loadingMark.textContent = "Loading…";
    header.append(this.title, this.loadingMark, this.age);
    this.body = document.createElement("div");
    this.body.className = "tile-body";
    this.more = document.createElement("button");
    this.more.type = "button";
    this.more.className = "tile-more";
    this.more.hidden = !(info.modes ?? []).includes("expanded") || !(info.modes ?? []).includes("compact");
    this.more.textContent = "Show more";
    this.more.addEventListener("click", () => this.toggleMode());
    this.element.append(header, this.body, this.more);
    visibility.observe(this);
  }

  target() {
    return this.instance ? { extension: this.info.id, instance: this.instance } : { extension: this.info.id };
  }

  maxSize() {
    return { width: Math.round(this.element.clientWidth || 320), height: MAX_HEIGHT[this.mode] };
  }

  start() {
    const subscription = { type: "subscribe", extensions: [this.info.id], ...environment() };
    if (this.instance) subscription.instance = this.instance;
    send(subscription);
    this.pull();
    this.render();
  }

  pull() {
    return request({ type: "pull", ...this.target(), mode: this.mode, maxSize: this.maxSize(), ...environment() });
  }

  toggleMode() {
    this.mode = this.mode === "compact" ? "expanded" : "compact";
    this.more.textContent = this.mode === "compact" ? "Show more" : "Show less";
    this.element.classList.toggle("tile-expanded", this.mode === "expanded");
    if (this.snapshots[this.mode]) this.render();
    this.pull();
  }

  receive(message) {
    const mode = message.mode ?? "compact";
    this.snapshots[mode] = { ...message, receivedAt: performance.now() };
    if (mode === this.mode) this.render();
  }

  // A tile without content is hidden, unless its widget has a preview: then it shows that
  // (WidgetKit's placeholder), marked as loading, until the first content arrives.
  render() {
    const message = this.snapshots[this.mode];
    const content = message?.snapshot;
    const empty = content === null || content === undefined;
    const loading = empty && this.info.preview !== undefined && this.info.preview !== null;
    const appears = this.element.hidden;
    this.element.hidden = empty && !loading;
    this.element.classList.toggle("tile-loading", loading);
    this.element.setAttribute("aria-busy", String(loading));
    if (this.element.hidden) return;
    if (appears) visibility.reobserve(this);
    if (loading) {
      this.body.replaceChildren(previewOf(this.info));
      this.body.style.height = "";
      return;
    }
    this.body.replaceChildren(this.content(content));
    const preferred = message.preferredSize?.height;
    this.body.style.maxHeight = MAX_HEIGHT[this.mode] + "px";
    this.body.style.height = preferred ? Math.min(preferred, MAX_HEIGHT[this.mode]) + "px" : "";
    this.element.dataset.version = message.version;
    this.showAge();
    this.element.dispatchEvent(new CustomEvent("rendered", { bubbles: true, detail: message }));
  }

  content(snapshot) {
    const context = {
      open: (url) => send({ type: "open", id: nextId++, extension: this.info.id, url }),
      execute: (action, button) => this.execute(action, button),
      assetURL: (name) => `/asset?extension=${encodeURIComponent(this.info.id)}&name=${encodeURIComponent(name)}`,
    };
    try {
      if (snapshot && snapshot.type === "AdaptiveCard") return renderCard(snapshot, context);
      if (snapshot && snapshot.type === "html" && typeof snapshot.html === "string") return htmlFrame(snapshot.html, context);
      if (this.info.cardTemplate) return renderCard(expandTemplate(this.info.cardTemplate, snapshot), context);
    } catch (error) {
      return note("This widget's card could not be shown: " + error.message);
    }
    return plainSnapshot(snapshot, context);
  }

  // Action.Execute: the button shows progress until the widget's new card arrives.
  async execute(action, button) {
    button.classList.add("ac-busy");
    button.disabled = true;
    const answer = await request({ type: "execute", ...this.target(), verb: action.verb, data: action.data,
                                   mode: this.mode, maxSize: this.maxSize(), ...environment() });
    button.classList.remove("ac-busy");
    button.disabled = false;
    if (answer.type === "error") status.textContent = `${this.info.id}: ${answer.error}`;
  }

  showAge() {
    const message = this.snapshots[this.mode];
    if (!message) return;
    const failed = message.stale || message.result === "failed";
    const seconds = Math.round((message.ageMs + performance.now() - message.receivedAt) / 1000);
    this.age.textContent = failed ? `updated ${formatAge(seconds)} ago` : "";
    this.age.title = failed && message.error ? message.error : "";
    this.element.classList.toggle("tile-stale", failed);
  }
}

function formatAge(seconds) {
  const format = new Intl.RelativeTimeFormat(navigator.language, { numeric: "always", style: "narrow" });
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
setInterval(() => { for (const tile of tiles.values()) tile.showAge(); }, 15000);

function note(text) {
  const element = document.createElement("p");
  element.className = "tile-note";
  element.textContent = text;
  return element;
}

// A plain JSON snapshot (a widget that knows no cards): its `text` (or `title`), else the JSON.
function plainSnapshot(snapshot, context) {
  const element = note(typeof snapshot?.text === "string" ? snapshot.text : typeof snapshot?.title === "string" ? snapshot.title : JSON.stringify(snapshot));
  const link = checkedLink(snapshot?.link);
  if (link) {
    element.classList.add("ac-selectable");
    element.addEventListener("click", () => context.open(link));
  }
  return element;
}

// An HTML widget runs in a frame of its own: scripts, but an opaque origin (it cannot reach
// this page) and the frame's policy (it cannot reach the network). Its links come back as
// messages and go to `open` like a card's.
const frames = new Map();
function htmlFrame(html, context) {
  const frame = document.createElement("iframe");
  frame.className = "tile-frame";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.src = "/frame";
  frame.addEventListener("load", () => frame.contentWindow.postMessage({ html }, "*"));
  frames.set(frame, context);
  return frame;
}
window.addEventListener("message", (event) => {
  for (const [frame, context] of frames) {
    if (!frame.isConnected) { frames.delete(frame); continue; }
    if (event.source !== frame.contentWindow) continue;
    const url = checkedLink(event.data?.open);
    if (url) context.open(url);
  }
});

// What the page shows, for the daemon: a tile out of view, or the whole page hidden, is
// `visible: false`, so that its scheduled refreshes wait (docs/PROTOCOL.md §3, visible).
const visibility = {
  shown: new Map(),
  observer: new IntersectionObserver((entries) => {
    for (const entry of entries) visibility.shown.set(entry.target.tile, entry.isIntersecting);
    visibility.report([...new Set(entries.map((entry) => entry.target.tile))]);
  }),
  observe(tile) {
    tile.element.tile = tile;
    this.observer.observe(tile.element);
  },
  // Observing again reports where the tile is now, in view or not (a tile that appears
  // below the fold changes no intersection, so nothing else would report it).
  reobserve(tile) {
    this.observer.unobserve(tile.element);
    this.observer.observe(tile.element);
  },
  // A tile still waiting for its first content is not reported: it is not out of view, and
  // saying so would hold back the widget's timeline until it is (the daemon defers pushes
  // of hidden widgets). Its first render makes the observer report it.
  report(changed) {
    const hiddenPage = document.visibilityState === "hidden";
    for (const value of [true, false]) {
      const group = changed.filter((tile) => !tile.element.hidden && (!hiddenPage && visibility.shown.get(tile) === true) === value
                                             && tiles.get(key(tile.info.id, tile.instance)) === tile);
      if (group.length) send({ type: "visible", extensions: group.map((tile) => tile.target()), visible: value, ...environment() });
    }
  },
};
document.addEventListener("visibilitychange", () => visibility.report([...tiles.values()]));

// Light and dark follow the browser; the widgets are told and asked for new content.
darkQuery.addEventListener("change", () => {
  for (const tile of tiles.values()) if (visibility.shown.get(tile)) tile.pull();
});
