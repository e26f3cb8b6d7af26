// The Today view's edit mode (docs/HOSTS.md, "A managing host"): the gallery of every widget
// the daemon lists (name, description, preview), a form for a new instance's parameters, and
// the tiles' remove and reorder controls. Every change is a host request (`enable`,
// `addInstance`, `removeInstance`, `arrange`); the daemon keeps it and pushes the new list.
import { renderCard } from "./cards.js";

// `page` gives request(message) → answer, tiles() → the tiles in their order, and
// targetsOf(info) → the instances a widget is shown as ([null] for the widget itself).
export class Gallery {
  constructor(page) {
    this.page = page;
    this.listed = [];
    this.editing = false;
    this.panel = document.getElementById("gallery");
    this.list = document.getElementById("gallery-list");
    this.error = document.getElementById("gallery-error");
    this.button = document.getElementById("edit");
    this.button.addEventListener("click", () => this.toggle());
    this.dragged = null;
  }

  toggle() {
    this.editing = !this.editing;
    document.body.classList.toggle("editing", this.editing);
    this.button.textContent = this.editing ? "Done" : "Edit";
    this.button.setAttribute("aria-pressed", String(this.editing));
    this.panel.hidden = !this.editing;
    this.showError("");
    this.draw();
    for (const tile of this.page.tiles()) this.decorate(tile);
  }

  update(extensions) {
    this.listed = extensions.filter((info) => info.point === "widget");
    if (this.editing) this.draw();
  }

  showError(text) {
    this.error.textContent = text;
  }

  // Runs a managing request; a refusal (or no answer) is shown, not swallowed, and so is a
  // change done but not on disk yet (`success` with an `error`).
  async change(message) {
    const answer = await this.page.request(message);
    if (answer.type === "error" || answer.success === false) {
      this.showError(`${message.type} ${message.extension ?? ""}: ${answer.error ?? "refused"}`);
      return false;
    }
    this.showError(answer.error ? `${message.type} ${message.extension ?? ""}: ${answer.error}` : "");
    return true;
  }

  draw() {
    if (!this.editing) return;
    // What can still be added first; widgets already shown as themselves last, dimmed.
    const addable = (info) => Boolean(info.parameters?.length) || !info.enabled;
    const ordered = [...this.listed.filter(addable), ...this.listed.filter((info) => !addable(info))];
    // An entry whose form is open stays as it is: a push must not lose what the user typed.
    const open = new Map([...this.list.querySelectorAll(".gallery-entry")]
      .filter((entry) => entry.querySelector("form")).map((entry) => [entry.dataset.extension, entry]));
    this.list.replaceChildren(...ordered.map((info) => open.get(info.id) ?? this.entry(info)));
  }

  entry(info) {
    const entry = document.createElement("article");
    entry.className = "gallery-entry";
    entry.dataset.extension = info.id;
    const name = document.createElement("h3");
    name.textContent = info.displayName ?? info.id;
    const description = document.createElement("p");
    description.className = "gallery-description";
    description.textContent = info.description ?? "";
    const preview = document.createElement("div");
    preview.className = "gallery-preview";
    if (info.preview !== undefined) preview.append(previewOf(info));
    else preview.hidden = true;
    const add = document.createElement("button");
    add.type = "button";
    add.className = "gallery-add";
    const shown = !(info.parameters?.length) && info.enabled;
    add.textContent = shown ? "Added" : "Add";
    add.disabled = shown;
    entry.classList.toggle("gallery-added", shown);
    add.addEventListener("click", () => {
      if (info.parameters?.length) entry.append(this.form(info, add));
      else this.change({ type: "enable", extension: info.id, enabled: true });
    });
    entry.append(name, description, preview, add);
    return entry;
  }

  // The new instance's settings, one field per declared parameter, defaults filled in. Its
  // name (the instance) follows the first choice or text until the user types one.
  form(info, add) {
    add.hidden = true;
    const form = document.createElement("form");
    form.className = "gallery-form";
    const fields = info.parameters.map((parameter) => field(parameter));
    const name = labelled("Name", input("text", { name: "instance", required: true, maxLength: 255 }));
    const instanceInput = name.querySelector("input");
    const naming = fields.find((f) => f.parameter.type === "choice" || f.parameter.type === "text");
    const suggest = () => { if (!instanceInput.dataset.typed) instanceInput.value = this.freeName(info, naming ? String(naming.value()) : (info.displayName ?? info.id)); };
    naming?.control.addEventListener("input", suggest);
    naming?.control.addEventListener("change", suggest);
    instanceInput.addEventListener("input", () => { instanceInput.dataset.typed = "1"; });
    suggest();
    const submit = document.createElement("button");
    submit.type = "submit";
    submit.textContent = "Add widget";
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", () => { form.remove(); add.hidden = false; });
    form.append(...fields.map((f) => f.element), name, submit, cancel);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const params = Object.fromEntries(fields.map((f) => [f.parameter.name, f.value()]));
      submit.disabled = true;
      const done = await this.change({ type: "addInstance", extension: info.id, instance: instanceInput.value, params });
      submit.disabled = false;
      if (done) { form.remove(); add.hidden = false; }
    });
    return form;
  }

  freeName(info, base) {
    const taken = new Set(this.page.targetsOf(info));
    let name = base.slice(0, 200) || "Widget";
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 200)} ${n}`;
    return name;
  }

  // A tile in edit mode: move up, move down, remove, and drag to reorder.
  decorate(tile) {
    tile.element.querySelector(".tile-edit")?.remove();
    tile.element.draggable = this.editing;
    if (!this.editing) return;
    const bar = document.createElement("div");
    bar.className = "tile-edit";
    bar.append(control("↑", "Move up", "tile-up", () => this.move(tile, -1)), control("↓", "Move down", "tile-down", () => this.move(tile, 1)));
    // An instance given on the command line is the operator's: only the user's can go.
    if (tile.instance === null || added(tile)) bar.append(control("Remove", "Remove this widget", "tile-remove", () => this.remove(tile)));
    tile.element.prepend(bar);
    if (tile.element.dataset.draggable) return;
    tile.element.dataset.draggable = "1";
    tile.element.addEventListener("dragstart", () => { this.dragged = tile; });
    tile.element.addEventListener("dragover", (event) => { if (this.dragged) event.preventDefault(); });
    tile.element.addEventListener("drop", (event) => {
      event.preventDefault();
      const shown = this.page.tiles().filter((t) => !t.element.hidden);
      if (this.dragged && this.dragged !== tile) this.move(this.dragged, shown.indexOf(tile) - shown.indexOf(this.dragged));
      this.dragged = null;
    });
  }

  // Moves a tile `by` places among the shown ones (tiles without content keep their rank).
  move(tile, by) {
    const order = this.page.tiles();
    const shown = order.filter((t) => !t.element.hidden);
    const from = shown.indexOf(tile);
    const to = Math.max(0, Math.min(shown.length - 1, from + by));
    if (from < 0 || from === to) return;
    const neighbour = shown[to];
    order.splice(order.indexOf(tile), 1);
    order.splice(order.indexOf(neighbour) + (by > 0 ? 1 : 0), 0, tile);
    this.change({ type: "arrange", widgets: order.map((t) => t.target()) });
  }

  // An added instance is removed; the widget itself (or the last instance of a widget shown
  // only through instances) is turned off, so that nothing of it is refreshed any more.
  async remove(tile) {
    const info = tile.info;
    const instance = added(tile);
    if (instance && !await this.change({ type: "removeInstance", extension: info.id, instance: tile.instance })) return;
    const left = this.page.targetsOf(info).filter((other) => other !== tile.instance);
    if (!instance || left.length === 0) await this.change({ type: "enable", extension: info.id, enabled: false });
  }
}

function added(tile) {
  return tile.instance !== null && (tile.info.instances ?? []).some((entry) => entry.instance === tile.instance);
}

// What a widget looks like before it has content: its `preview`, inert (taps do nothing).
export function previewOf(info) {
  const preview = info.preview;
  if (preview?.type === "AdaptiveCard") return renderCard(preview, { open() {}, execute() {}, assetURL: () => "" });
  const text = document.createElement("p");
  text.className = "tile-note";
  text.textContent = typeof preview?.text === "string" ? preview.text : JSON.stringify(preview);
  return text;
}

function input(type, properties) {
  const element = document.createElement("input");
  element.type = type;
  Object.assign(element, properties);
  return element;
}

function labelled(text, control) {
  const label = document.createElement("label");
  const caption = document.createElement("span");
  caption.textContent = text;
  label.append(caption, control);
  return label;
}

// One parameter's control with its default, and how to read its value back as JSON.
function field(parameter) {
  let control;
  let value;
  switch (parameter.type) {
    case "choice":
      control = document.createElement("select");
      for (const choice of parameter.choices ?? []) control.append(new Option(choice, choice, false, choice === parameter.default));
      value = () => control.value;
      break;
    case "number":
      control = input("number", { min: parameter.min, max: parameter.max, step: parameter.step ?? "any", value: parameter.default, required: true });
      value = () => Number(control.value);
      break;
    case "toggle":
      control = input("checkbox", { checked: parameter.default === true });
      value = () => control.checked;
      break;
    default:
      control = input("text", { value: parameter.default ?? "", maxLength: parameter.maxLength ?? 256 });
      value = () => control.value;
  }
  control.name = parameter.name;
  const element = labelled(parameter.displayName ?? parameter.name, control);
  element.className = "gallery-field";
  return { parameter, control, element, value };
}

function control(text, title, className, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.textContent = text;
  button.title = title;
  button.setAttribute("aria-label", title);
  button.addEventListener("click", action);
  return button;
}
