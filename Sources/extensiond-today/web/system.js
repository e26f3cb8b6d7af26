// The System page: the daemon's figures of the last minutes as pictures (SVG), read from
// /system.json every few seconds: the tree's memory against its watermarks, the kills on
// a timeline, and each process's memory against its limit.
const NS = "http://www.w3.org/2000/svg";
// The last 10 minutes, or less while the program has been sampling for less (at least 1).
const MAX_WINDOW_MS = 10 * 60 * 1000;
let WINDOW_MS = MAX_WINDOW_MS;
const status = document.getElementById("status");

function svg(tag, attributes, text) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function mib(bytes) {
  return bytes >= 1 << 30 ? (bytes / (1 << 30)).toFixed(1) + " GiB" : (bytes / (1 << 20)).toFixed(1) + " MiB";
}

// A time axis over the last WINDOW_MS, with five labels.
function timeAxis(chart, now, x, height) {
  for (let step = 0; step <= 4; step++) {
    const seconds = Math.round((WINDOW_MS / 1000) * step / 4);
    const at = x(now - seconds * 1000);
    chart.append(svg("line", { x1: at, x2: at, y1: 0, y2: height, class: "grid" }));
    const label = seconds === 0 ? "now" : seconds % 60 === 0 ? `−${seconds / 60} min` : `−${seconds} s`;
    chart.append(svg("text", { x: at + 3, y: height + 12, class: "axis" }, label));
  }
}

function frame(element, height) {
  const width = Math.max(280, element.clientWidth || element.parentElement.clientWidth || 600);
  element.replaceChildren();
  element.setAttribute("viewBox", `0 0 ${width} ${height + 16}`);
  return { width, x: (now) => (t) => ((t - (now - WINDOW_MS)) / WINDOW_MS) * (width - 70) };
}

function drawTree(data) {
  const element = document.getElementById("tree");
  const height = 160;
  const { x: timeX } = frame(element, height);
  const x = timeX(data.now);
  const marks = [["budget", data.budget], ["critical", data.critical], ["low", data.low], ["warn", data.warn]].filter(([, v]) => v);
  const top = Math.max(1, ...marks.map(([, v]) => v), ...data.samples.map((s) => s.tree ?? 0)) * 1.05;
  const y = (bytes) => height - (bytes / top) * height;
  timeAxis(element, data.now, x, height);
  const points = data.samples.filter((s) => s.tree !== null).map((s) => [x(s.t), y(s.tree)]);
  if (points.length) {
    const area = `M${points[0][0]},${height} ` + points.map(([px, py]) => `L${px},${py}`).join(" ") + ` L${points.at(-1)[0]},${height} Z`;
    element.append(svg("path", { d: area, class: "usage-area" }));
    element.append(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "usage-line" }));
    element.append(svg("text", { x: points.at(-1)[0] + 4, y: points.at(-1)[1] - 4, class: "value" }, mib(data.samples.findLast((s) => s.tree !== null).tree)));
  }
  for (const [name, bytes] of marks) {
    element.append(svg("line", { x1: 0, x2: x(data.now), y1: y(bytes), y2: y(bytes), class: "mark mark-" + name }));
    element.append(svg("text", { x: x(data.now) + 4, y: y(bytes) + 4, class: "mark-label mark-" + name }, `${name} ${mib(bytes)}`));
  }
}

function drawKills(data) {
  const element = document.getElementById("kills");
  const height = 56;
  const { x: timeX } = frame(element, height);
  const x = timeX(data.now);
  timeAxis(element, data.now, x, height);
  element.append(svg("line", { x1: 0, x2: x(data.now), y1: height / 2, y2: height / 2, class: "timeline" }));
  const recent = data.kills.filter((kill) => kill.t >= data.now - WINDOW_MS);
  recent.forEach((kill, index) => {
    const at = x(kill.t);
    const dot = svg("circle", { cx: at, cy: height / 2, r: 6, class: "kill kill-" + (kill.reason ?? "other") });
    dot.append(svg("title", {}, `${new Date(kill.t).toLocaleTimeString()} ${kill.name ?? ""}: ${kill.message}`));
    element.append(dot);
    element.append(svg("text", { x: at + 8, y: index % 2 ? height / 2 + 18 : height / 2 - 10, class: "kill-label" }, `${kill.name ?? "?"} (${kill.reason ?? "kill"})`));
  });
  if (!recent.length) element.append(svg("text", { x: 8, y: height / 2 - 8, class: "axis" }, "No kills in this time"));
}

function drawProcesses(data) {
  const container = document.getElementById("processes");
  container.replaceChildren();
  const names = Object.keys(data.kinds).sort((a, b) => (data.kinds[a] + a).localeCompare(data.kinds[b] + b));
  for (const name of names) {
    const figure = document.createElement("figure");
    figure.className = "process";
    const caption = document.createElement("figcaption");
    const series = data.samples.filter((s) => s.processes[name] !== undefined);
    const latest = series.at(-1)?.processes[name];
    const limit = data.limits[name];
    caption.textContent = `${name} · ${data.kinds[name]}` + (latest !== undefined ? ` · ${mib(latest)}` : " · not running") + (limit ? ` of ${mib(limit)}` : "");
    const chart = svg("svg", { viewBox: "0 0 240 60", class: "spark", role: "img", "aria-label": caption.textContent });
    const top = Math.max(limit ?? 0, ...series.map((s) => s.processes[name])) * 1.1 || 1;
    const x = (t) => ((t - (data.now - WINDOW_MS)) / WINDOW_MS) * 240;
    const y = (bytes) => 58 - (bytes / top) * 56;
    if (limit) chart.append(svg("line", { x1: 0, x2: 240, y1: y(limit), y2: y(limit), class: "mark mark-limit" }));
    if (series.length) chart.append(svg("polyline", { points: series.map((s) => `${x(s.t)},${y(s.processes[name])}`).join(" "), class: "usage-line" }));
    figure.append(caption, chart);
    container.append(figure);
  }
}

async function refresh() {
  try {
    const data = await (await fetch("/system.json", { cache: "no-store" })).json();
    const first = data.samples[0]?.t ?? data.now;
    WINDOW_MS = Math.min(MAX_WINDOW_MS, Math.max(60000, Math.ceil((data.now - first) / 60000) * 60000));
    status.textContent = data.error ? `The daemon's figures are not readable: ${data.error}` : "";
    drawTree(data);
    drawKills(data);
    drawProcesses(data);
  } catch (error) {
    status.textContent = "Cannot reach extensiond-today: " + error.message;
  }
}

refresh();
setInterval(refresh, 5000);
addEventListener("resize", refresh);
