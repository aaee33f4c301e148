// The report, for the eye: the state and the verdict line, every factor grouped by leg as
// /criteria's `report_layout` publishes it (the layout the command line's text view prints), the
// factors in `decided_by` marked, the seller's recipe for UNCONFIGURED and MEMO-ABSENT, and the
// honesty, disclosure and retention lines. Every string is set as text, never parsed as HTML.

/** An element with text. */
function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A factor's value as shown: strings bare, lists bracketed, anything else as JSON. */
export function shown(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return "[" + value.map(shown).join(", ") + "]";
  return JSON.stringify(value);
}

/** The rows of a report's factors: {group, name, fetch, detail, value}, in the layout's order. */
export function rows(report, layout) {
  const factors = report.factors && typeof report.factors === "object" ? report.factors : {};
  const out = [];
  const known = (list, from, fetch) => {
    for (const [name, group] of list) {
      if (Object.hasOwn(from, name)) out.push({ group, name, fetch, detail: "", value: from[name] });
    }
  };
  const others = (from, names, fetch) => {
    for (const name of Object.keys(from)) {
      if (!names.includes(name)) out.push({ group: "other", name, fetch, detail: "", value: from[name] });
    }
  };
  if (report.op !== "memo") {
    known(layout.check, factors);
    others(factors, layout.check.map(([name]) => name));
    return out;
  }
  const fetches = Array.isArray(factors.fetches) ? factors.fetches.filter((f) => f && typeof f === "object") : [];
  for (const [name, group] of layout.memo_per_fetch) {
    fetches.forEach((fetch, i) => {
      if (Object.hasOwn(fetch, name)) out.push({ group, name, fetch: i + 1, detail: "", value: fetch[name] });
    });
  }
  fetches.forEach((fetch, i) => others(fetch, layout.memo_per_fetch.map(([name]) => name), i + 1));
  const census = factors.correlation_census || {};
  for (const [leg, group] of [["body", "body leg"], ["header", "header leg"]]) {
    for (const n of [1, 2]) {
      const names = census["fetch" + n] && census["fetch" + n][leg];
      if (names !== undefined) out.push({ group, name: "correlation_census", fetch: n, detail: ", " + leg, value: names });
    }
  }
  known(layout.memo_pair, factors);
  others(factors, layout.memo_pair.map(([name]) => name).concat(["fetches", "correlation_census"]));
  return out;
}

/** A row's label: its name, and its fetch when it has one. */
function label(row) {
  return row.fetch ? row.name + " (fetch " + row.fetch + row.detail + ")" : row.name;
}

/** The deciders of `decided_by`: {name, fetch, value}. */
function deciders(report) {
  const list = report.decided_by && Array.isArray(report.decided_by.factors) ? report.decided_by.factors : [];
  return list.filter((d) => d && typeof d.factor === "string")
    .map((d) => ({ name: d.factor, fetch: Number.isInteger(d.fetch) ? d.fetch : null, value: d.value }));
}

/** What a seller changes for each state a middleware grades out of the box (docs/sellers.md). */
const RECIPES = {
  UNCONFIGURED:
    "The 402 has no v1-style body leg (the official v2 middlewares answer {} as the body), so every " +
    "body field reads absent. Keep the PAYMENT-REQUIRED header and add a JSON body whose accepts[0] " +
    "carries payTo, amount (digits, as a string), resource (exactly the URL called), " +
    "extra.usdc_token_account and extra.memo, the same values the header carries: " +
    "unpaidResponseBody in @x402/express and @x402/hono, the same option in the Python SDK's " +
    "FastAPI and Flask middleware. The tested recipe for each is in docs/sellers.md of this service.",
  "MEMO-ABSENT":
    "The memo op reads the body leg's memo, and this 402 carries none in its body in both fetches. " +
    "Add the v1-style body (see UNCONFIGURED) with extra.memo, fresh for each challenge and equal " +
    "to the header's extra.memo, and the memo op grades BOUND. The tested recipe for each official " +
    "middleware is in docs/sellers.md of this service.",
};

/** Renders a report into the page's report view. */
export function renderReport(report, layout) {
  const text = (field) => (typeof report[field] === "string" ? report[field] : "");
  document.getElementById("verdict-line").textContent = text("verdict_line") || "state: " + text("state");
  const decided = deciders(report);
  const step = report.decided_by && Number.isInteger(report.decided_by.step) ? report.decided_by.step : null;
  const summary = document.getElementById("decided");
  summary.textContent = step === null ? "" :
    "Decided by step " + step + " of the " + text("op") + " state rule: " +
    (decided.length ? decided.map((d) => d.name + (d.fetch ? " (fetch " + d.fetch + ")" : "") + ": " + shown(d.value)).join(", ")
      : "no factor (no earlier step matched)") + ".";
  const recipe = RECIPES[text("state")];
  document.getElementById("recipe").hidden = !recipe;
  document.getElementById("recipe-text").textContent = recipe || "";

  const all = rows(report, layout);
  const container = document.getElementById("factors");
  container.replaceChildren();
  for (const group of layout.groups) {
    const inGroup = all.filter((row) => row.group === group);
    if (!inGroup.length) continue;
    const table = element("table");
    table.append(element("caption", group));
    const head = element("tr");
    const factorHead = element("th", "factor"); factorHead.scope = "col";
    const valueHead = element("th", "value"); valueHead.scope = "col";
    head.append(factorHead, valueHead);
    const thead = element("thead");
    thead.append(head);
    table.append(thead);
    const body = element("tbody");
    for (const row of inGroup) {
      const marked = decided.some((d) => d.name === row.name && (d.fetch === null || d.fetch === row.fetch));
      const tr = element("tr", undefined, marked ? "decided" : "");
      const th = element("th", label(row)); th.scope = "row";
      tr.append(th, element("td", shown(row.value), "value"));
      body.append(tr);
    }
    table.append(body);
    container.append(table);
  }

  const lines = document.getElementById("lines");
  lines.replaceChildren();
  for (const [field, title] of [["disclosure", "Disclosure"], ["honesty", "Honesty"], ["retention", "Retention"],
                                ["url", "Called URL"], ["checked_at", "Checked at"], ["criteria_revision", "Criteria revision"]]) {
    if (text(field)) lines.append(element("dt", title), element("dd", text(field)));
  }
  document.getElementById("report-json").textContent = JSON.stringify(report, null, 2);
  document.getElementById("report-view").hidden = false;
}
