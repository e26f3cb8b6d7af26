// The Adaptive Cards renderer of the Today view: the 1.5 subset of docs/HOSTS.md, written
// for this page (no library: the page works offline and loads nothing from elsewhere).
// Every text goes into the DOM as text (textContent), never as markup; every URL is
// checked; an element outside the subset renders its fallback, or nothing.

const SPACING = new Set(["none", "small", "default", "medium", "large", "extraLarge", "padding"]);
const SIZES = new Set(["small", "default", "medium", "large", "extraLarge"]);
const COLORS = new Set(["default", "dark", "light", "accent", "good", "warning", "attention"]);
const STYLES = new Set(["default", "emphasis", "good", "attention", "warning", "accent"]);
const IMAGE_SIZES = new Set(["auto", "stretch", "small", "medium", "large"]);
const ALIGNMENTS = new Set(["left", "center", "right"]);
const MAX_DEPTH = 32;
const MAX_TEXT = 64 * 1024;

// A link the page may hand to the daemon's `open`: a URL with a scheme other than the
// ones that run code or read local data in a browser.
const REFUSED_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]);
export function checkedLink(value) {
  if (typeof value !== "string" || value.length > 8192) return null;
  let url;
  try { url = new URL(value); } catch { return null; }
  if (REFUSED_SCHEMES.has(url.protocol.toLowerCase())) return null;
  return url.href;
}

// An image source: a bounded `data:image/...;base64,` URI, or `asset:NAME` (a file of the
// widget's assets/ directory, fetched through the daemon).
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;
const ASSET = /^asset:([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;
function imageSource(value, context) {
  if (typeof value !== "string") return null;
  if (value.length <= 256 * 1024 && DATA_IMAGE.test(value)) return value;
  const asset = ASSET.exec(value);
  return asset ? context.assetURL(asset[1]) : null;
}

function text(value) {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") return "";
  return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) + "…" : value;
}

function pick(value, allowed, fallback) {
  return allowed.has(value) ? value : fallback;
}

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

// Renders `card` (an AdaptiveCard object) into a new element. `context` gives
// open(url), execute(action, button), assetURL(name).
export function renderCard(card, context) {
  const root = el("div", "ac-card");
  if (!card || card.type !== "AdaptiveCard" || !Array.isArray(card.body ?? [])) {
    root.append(errorNote("not an Adaptive Card"));
    return root;
  }
  const state = { context, ids: new Map(), depth: 0 };
  renderItems(card.body ?? [], root, state);
  if (Array.isArray(card.actions) && card.actions.length) root.append(renderActionSet({ actions: card.actions }, state));
  bindSelect(root, card.selectAction, state);
  if (typeof card.minHeight === "string" && /^\d{1,4}px$/.test(card.minHeight)) root.style.minHeight = card.minHeight;
  return root;
}

function errorNote(message) {
  const note = el("div", "ac-error");
  note.textContent = message;
  return note;
}

function renderItems(items, parent, state) {
  if (!Array.isArray(items)) return;
  let first = true;
  for (const item of items) {
    const node = renderElement(item, state);
    if (!node) continue;
    if (!first) applySpacing(node, item);
    first = false;
    parent.append(node);
  }
}

function applySpacing(node, item) {
  node.classList.add("ac-spacing-" + pick(item.spacing, SPACING, "default"));
  if (item.separator === true) node.classList.add("ac-separator");
}

const RENDERERS = {
  TextBlock: renderTextBlock,
  RichTextBlock: renderRichTextBlock,
  Image: renderImage,
  ImageSet: renderImageSet,
  Container: renderContainer,
  ColumnSet: renderColumnSet,
  FactSet: renderFactSet,
  ActionSet: renderActionSet,
};

// One element, or its fallback when its type is outside the subset (`"drop"`, or none:
// nothing). A fallback may have a fallback of its own.
function renderElement(item, state) {
  if (!item || typeof item !== "object" || state.depth >= MAX_DEPTH) return null;
  const render = Object.hasOwn(RENDERERS, item.type) ? RENDERERS[item.type] : null;
  if (!render) return item.fallback && typeof item.fallback === "object" ? renderElement(item.fallback, state) : null;
  state.depth += 1;
  const node = render(item, state);
  state.depth -= 1;
  if (typeof item.id === "string") {
    node.dataset.acId = item.id;
    state.ids.set(item.id, node);
  }
  if (item.isVisible === false) node.hidden = true;
  return node;
}

function textStyle(node, item) {
  node.classList.add("ac-size-" + pick(item.size, SIZES, "default"));
  node.classList.add("ac-color-" + pick(item.color, COLORS, "default"));
  if (item.weight === "bolder") node.classList.add("ac-bolder");
  if (item.weight === "lighter") node.classList.add("ac-lighter");
  if (item.isSubtle === true) node.classList.add("ac-subtle");
  if (item.fontType === "monospace") node.classList.add("ac-monospace");
}

function renderTextBlock(item, state) {
  const node = el("div", "ac-textblock");
  node.textContent = text(item.text);
  textStyle(node, item);
  if (item.style === "heading") node.setAttribute("role", "heading");
  if (item.wrap === true) node.classList.add("ac-wrap");
  if (Number.isInteger(item.maxLines) && item.maxLines > 0) {
    node.classList.add("ac-wrap", "ac-clamp");
    node.style.webkitLineClamp = String(Math.min(item.maxLines, 100));
  }
  node.style.textAlign = pick(item.horizontalAlignment, ALIGNMENTS, "");
  return node;
}

function renderRichTextBlock(item, state) {
  const node = el("div", "ac-richtext ac-wrap");
  node.style.textAlign = pick(item.horizontalAlignment, ALIGNMENTS, "");
  for (const inline of Array.isArray(item.inlines) ? item.inlines.slice(0, 256) : []) {
    const run = el("span", "ac-textrun");
    if (typeof inline === "string") {
      run.textContent = text(inline);
    } else if (inline && inline.type === "TextRun") {
      run.textContent = text(inline.text);
      textStyle(run, inline);
      if (inline.italic === true) run.classList.add("ac-italic");
      if (inline.strikethrough === true) run.classList.add("ac-strike");
      if (inline.underline === true) run.classList.add("ac-underline");
      if (inline.highlight === true) run.classList.add("ac-highlight");
      bindSelect(run, inline.selectAction, state);
    } else {
      continue;
    }
    node.append(run);
  }
  return node;
}

function renderImage(item, state, setSize) {
  const source = imageSource(item.url, state.context);
  const node = el("img", "ac-image ac-image-" + pick(setSize ?? item.size, IMAGE_SIZES, "auto"));
  node.alt = text(item.altText);
  if (source) node.src = source; else node.classList.add("ac-image-refused");
  if (item.style === "person") node.classList.add("ac-person");
  for (const side of ["width", "height"]) {
    if (typeof item[side] === "string" && /^\d{1,4}px$/.test(item[side])) node.style[side] = item[side];
  }
  const align = pick(item.horizontalAlignment, ALIGNMENTS, null);
  if (align) node.classList.add("ac-align-" + align);
  bindSelect(node, item.selectAction, state);
  return node;
}

function renderImageSet(item, state) {
  const node = el("div", "ac-imageset");
  for (const image of Array.isArray(item.images) ? item.images.slice(0, 64) : []) {
    if (image && image.type === "Image") node.append(renderImage(image, state, item.imageSize ?? "medium"));
  }
  return node;
}

function containerStyle(node, item) {
  const style = pick(item.style, STYLES, null);
  if (style && style !== "default") node.classList.add("ac-style-" + style);
  const vertical = { center: "center", bottom: "flex-end" }[item.verticalContentAlignment];
  if (vertical) node.style.justifyContent = vertical;
  if (typeof item.minHeight === "string" && /^\d{1,4}px$/.test(item.minHeight)) node.style.minHeight = item.minHeight;
}

function renderContainer(item, state) {
  const node = el("div", "ac-container");
  containerStyle(node, item);
  renderItems(item.items, node, state);
  bindSelect(node, item.selectAction, state);
  return node;
}

function renderColumnSet(item, state) {
  const node = el("div", "ac-columnset");
  containerStyle(node, item);
  let first = true;
  for (const column of Array.isArray(item.columns) ? item.columns.slice(0, 32) : []) {
    if (!column || column.type !== "Column" && column.type !== undefined) continue;
    const cell = el("div", "ac-column ac-container");
    containerStyle(cell, column);
    const width = column.width ?? "stretch";
    if (width === "auto") cell.style.flex = "0 0 auto";
    else if (typeof width === "number" && width > 0) cell.style.flex = `${Math.min(width, 1000)} 1 0`;
    else if (typeof width === "string" && /^\d{1,4}px$/.test(width)) cell.style.flex = `0 0 ${width}`;
    else if (typeof width === "string" && /^\d{1,4}$/.test(width)) cell.style.flex = `${width} 1 0`;
    else cell.style.flex = "1 1 0";
    if (!first) applySpacing(cell, column);
    first = false;
    state.depth += 1;
    renderItems(column.items, cell, state);
    state.depth -= 1;
    bindSelect(cell, column.selectAction, state);
    if (typeof column.id === "string") state.ids.set(column.id, cell);
    if (column.isVisible === false) cell.hidden = true;
    node.append(cell);
  }
  bindSelect(node, item.selectAction, state);
  return node;
}

function renderFactSet(item, state) {
  const node = el("dl", "ac-factset");
  for (const fact of Array.isArray(item.facts) ? item.facts.slice(0, 128) : []) {
    const title = el("dt", "ac-fact-title");
    title.textContent = text(fact?.title);
    const value = el("dd", "ac-fact-value");
    value.textContent = text(fact?.value);
    node.append(title, value);
  }
  return node;
}

function renderActionSet(item, state) {
  const node = el("div", "ac-actionset");
  for (const action of Array.isArray(item.actions) ? item.actions.slice(0, 16) : []) {
    const button = renderAction(action, state);
    if (button) node.append(button);
  }
  return node;
}

const ACTIONS = new Set(["Action.OpenUrl", "Action.ToggleVisibility", "Action.Execute"]);

function renderAction(action, state) {
  if (!action || typeof action !== "object") return null;
  if (!ACTIONS.has(action.type)) {
    return action.fallback && typeof action.fallback === "object" ? renderAction(action.fallback, state) : null;
  }
  const button = el("button", "ac-action");
  button.type = "button";
  button.textContent = text(action.title) || (action.type === "Action.OpenUrl" ? "Open" : "•");
  if (action.style === "positive" || action.style === "destructive") button.classList.add("ac-action-" + action.style);
  if (action.type === "Action.OpenUrl" && !checkedLink(action.url)) button.disabled = true;
  bindAction(button, action, state);
  return button;
}

// A tap: OpenUrl goes to the daemon's `open` (the containing app, never the widget),
// ToggleVisibility is the page's own, Execute goes to the widget.
function bindAction(node, action, state) {
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    perform(action, node, state);
  });
}

function bindSelect(node, action, state) {
  if (!action || typeof action !== "object" || !ACTIONS.has(action.type)) return;
  if (action.type === "Action.OpenUrl" && !checkedLink(action.url)) return;
  node.classList.add("ac-selectable");
  node.tabIndex = 0;
  node.setAttribute("role", "link");
  bindAction(node, action, state);
}

function perform(action, node, state) {
  switch (action.type) {
    case "Action.OpenUrl": {
      const url = checkedLink(action.url);
      if (url) state.context.open(url);
      break;
    }
    case "Action.ToggleVisibility":
      for (const target of Array.isArray(action.targetElements) ? action.targetElements : []) {
        const id = typeof target === "string" ? target : target?.elementId;
        const element = state.ids.get(id);
        if (!element) continue;
        element.hidden = typeof target === "object" && typeof target.isVisible === "boolean" ? !target.isVisible : !element.hidden;
      }
      break;
    case "Action.Execute":
      state.context.execute({ verb: typeof action.verb === "string" ? action.verb : "", data: action.data ?? null }, node);
      break;
  }
}
