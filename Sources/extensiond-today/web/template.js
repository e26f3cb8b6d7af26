// The Adaptive Cards template language, as far as docs/HOSTS.md lists it: `${expression}`
// in strings, `$data` (binds, or repeats an element per array item), `$when` (drops an
// element whose condition is false). Expressions: paths (`a.b[0]`, `$root`, `$data`,
// `$index`), literals, `!`, comparisons, `&&`, `||`, parentheses and `if(c, a, b)`.
// Expansion happens here, in the page, so that widgets send data and not layout.

const MAX_NODES = 10000;
const MAX_DEPTH = 64;

export function expandTemplate(template, data) {
  const budget = { nodes: 0 };
  return expand(template, { $root: data, $data: data, $index: undefined }, budget, 0);
}

function expand(node, scope, budget, depth) {
  if (++budget.nodes > MAX_NODES || depth > MAX_DEPTH) throw new Error("the template expands to too much");
  if (typeof node === "string") return interpolate(node, scope);
  if (Array.isArray(node)) {
    const out = [];
    for (const item of node) {
      const expanded = expandElement(item, scope, budget, depth + 1);
      for (const value of expanded) out.push(value);
    }
    return out;
  }
  if (node && typeof node === "object") {
    const [only] = expandElement(node, scope, budget, depth);
    return only === undefined ? null : only;
  }
  return node;
}

// An element expands to zero (`$when` false), one, or many (`$data` an array) values.
function expandElement(node, scope, budget, depth) {
  if (!node || typeof node !== "object" || Array.isArray(node)) return [expand(node, scope, budget, depth)];
  let scopes = [scope];
  if (Object.hasOwn(node, "$data")) {
    const bound = typeof node.$data === "string" ? interpolate(node.$data, scope) : node.$data;
    scopes = Array.isArray(bound)
      ? bound.map((item, index) => ({ $root: scope.$root, $data: item, $index: index }))
      : [{ $root: scope.$root, $data: bound, $index: scope.$index }];
  }
  const out = [];
  for (const itemScope of scopes) {
    if (Object.hasOwn(node, "$when") && !truthy(typeof node.$when === "string" ? interpolate(node.$when, itemScope) : node.$when)) continue;
    const object = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$data" || key === "$when") continue;
      object[key] = expand(value, itemScope, budget, depth + 1);
    }
    out.push(object);
  }
  return out;
}

function truthy(value) {
  return !(value === false || value === null || value === undefined || value === 0 || value === "");
}

const WHOLE = /^\$\{([^{}]*)\}$/;
const PART = /\$\{([^{}]*)\}/g;

function interpolate(text, scope) {
  const whole = WHOLE.exec(text);
  if (whole) return evaluate(whole[1], scope);
  return text.replace(PART, (_, expression) => {
    const value = evaluate(expression, scope);
    if (value === undefined || value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}

// A small recursive-descent evaluator over the tokens of one expression.
const TOKEN = /\s*(\d+(?:\.\d+)?|'[^']*'|"[^"]*"|[A-Za-z_$][\w$]*|==|!=|<=|>=|&&|\|\||[!<>()[\].,])/y;

function evaluate(expression, scope) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  let match;
  while (TOKEN.lastIndex < expression.length && (match = TOKEN.exec(expression))) tokens.push(match[1]);
  if (expression.slice(TOKEN.lastIndex).trim() !== "") return undefined;
  const parser = { tokens, at: 0, scope };
  try {
    const value = or(parser);
    return parser.at === tokens.length ? value : undefined;
  } catch {
    return undefined;
  }
}

function peek(p) { return p.tokens[p.at]; }
function take(p, expected) {
  const token = p.tokens[p.at++];
  if (expected !== undefined && token !== expected) throw new Error("expected " + expected);
  return token;
}

function or(p) {
  let value = and(p);
  while (peek(p) === "||") { take(p); const right = and(p); value = truthy(value) || truthy(right); }
  return value;
}

function and(p) {
  let value = comparison(p);
  while (peek(p) === "&&") { take(p); const right = comparison(p); value = truthy(value) && truthy(right); }
  return value;
}

function comparison(p) {
  const left = unary(p);
  const op = peek(p);
  if (!["==", "!=", "<", "<=", ">", ">="].includes(op)) return left;
  take(p);
  const right = unary(p);
  switch (op) {
    case "==": return left === right;
    case "!=": return left !== right;
    case "<": return left < right;
    case "<=": return left <= right;
    case ">": return left > right;
    default: return left >= right;
  }
}

function unary(p) {
  if (peek(p) === "!") { take(p); return !truthy(unary(p)); }
  return primary(p);
}

function primary(p) {
  const token = take(p);
  if (token === undefined) throw new Error("unexpected end");
  if (token === "(") { const value = or(p); take(p, ")"); return value; }
  if (/^\d/.test(token)) return Number(token);
  if (token[0] === "'" || token[0] === '"') return token.slice(1, -1);
  if (token === "true") return true;
  if (token === "false") return false;
  if (token === "null") return null;
  if (token === "if" && peek(p) === "(") {
    take(p);
    const condition = or(p); take(p, ",");
    const then = or(p); take(p, ",");
    const otherwise = or(p); take(p, ")");
    return truthy(condition) ? then : otherwise;
  }
  return path(p, token);
}

function path(p, first) {
  let value;
  if (first === "$root" || first === "$data" || first === "$index") value = p.scope[first] ?? null;
  else value = member(p.scope.$data, first);
  for (;;) {
    if (peek(p) === ".") { take(p); value = member(value, take(p)); }
    else if (peek(p) === "[") { take(p); const key = or(p); take(p, "]"); value = member(value, key); }
    else return value;
  }
}

// A missing member is null, as in the Adaptive Expression Language (`${x != null}`).
function member(value, key) {
  if (value === null || typeof value !== "object") return null;
  const name = String(key);
  return Object.hasOwn(value, name) ? value[name] : null;
}
