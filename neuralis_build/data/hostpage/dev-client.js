// The live side of `neuralis-build dev`: reload after a good rebuild, an overlay over the last good
// page after a failed one, the check diagnostics of every change, and the test-event panel.
// window.__neuralisDev is its machine-readable state (generation, overlay, last publish).
// Every control (state, live, publish) is a POST from this page with the session's key: the server
// answers nothing else, so another local user or a web page that finds the port gets a 403.
const config = JSON.parse(document.getElementById("neuralis-host-config").textContent);
const dev = config.dev;
const KEY = dev.key;

function control(name, body) {
  return fetch(`/__neuralis/${name}`, {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json", "X-Neuralis-Key": KEY },
    body: JSON.stringify(body === undefined ? {} : body),
  });
}
const live = (window.__neuralisDev = {
  generation: dev.generation,
  version: dev.version,
  overlay: null,
  state: null,
  lastPublish: null,
  connected: false,
});

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "className") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2).toLowerCase(), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function where(d) {
  return `${d.file}${d.line ? `:${d.line}:${d.column}` : ""}${d.pointer ? ` ${d.pointer}` : ""}`;
}

const side = document.getElementById("neuralis-side");
const buildBox = el("section", { className: "nh-build", id: "neuralis-build" }, el("h2", null, "Build"), el("p", null, "…"));
const diagBox = el("section", { className: "nh-diagnostics", id: "neuralis-diagnostics" }, el("h2", null, "Diagnostics"));
const eventsBox = el("section", { className: "nh-events", id: "neuralis-events" }, el("h2", null, "Test event"));
side.append(buildBox, diagBox, eventsBox);

function renderBuild(state) {
  const b = state.build;
  const line = !b
    ? "not built yet"
    : b.ok
      ? `ok in ${b.ms} ms${b.changed.length ? ` (${b.changed.join(", ")})` : ""}`
      : `failed: ${b.message}; showing the last good page`;
  buildBox.replaceChildren(
    el("h2", null, "Build"),
    el("p", { className: b && !b.ok ? "nh-build--failed" : "nh-build--ok", "data-ok": String(!b || b.ok) }, line),
    el("p", { className: "nh-build__gen" }, `page generation ${live.generation}`),
  );
  document.getElementById("neuralis-dev-state").textContent = b && !b.ok ? "build failed" : "live";
}

function renderDiagnostics(state) {
  const list = state.diagnostics;
  const counts = ["error", "warning", "note"].map((s) => `${list.filter((d) => d.severity === s).length} ${s}s`);
  diagBox.replaceChildren(
    el("h2", null, `Diagnostics · check --trust ${config.trust}`),
    el("p", { className: "nh-diags__counts" }, counts.join(", ")),
    list.length === 0
      ? el("p", { className: "nh-diags nh-diags--ok" }, "no findings")
      : el(
          "ul",
          { className: "nh-diags" },
          ...list.map((d) =>
            el(
              "li",
              { className: `nh-diag nh-diag--${d.severity}`, "data-code": d.code },
              el("b", null, `${d.severity} ${d.code}`),
              ` ${where(d)}: ${d.message}`,
              d.hint ? el("small", null, `hint: ${d.hint}`) : null,
            ),
          ),
        ),
  );
}

function renderOverlay(state) {
  const b = state.build;
  const old = document.getElementById("neuralis-overlay");
  if (!b || b.ok) {
    if (old) old.remove();
    live.overlay = null;
    return;
  }
  const text = [b.message, ...b.errors.map((d) => `${where(d)}: ${d.code} ${d.message}${d.hint ? `\n    hint: ${d.hint}` : ""}`)].join("\n");
  live.overlay = text;
  const box = el(
    "div",
    { className: "nh-overlay", id: "neuralis-overlay", role: "alertdialog", "aria-label": "build failed" },
    el(
      "div",
      { className: "nh-overlay__box" },
      el("h2", null, "Build failed: showing the last good page"),
      el("pre", { className: "nh-overlay__error" }, text),
      b.frame ? el("pre", { className: "nh-overlay__frame" }, b.frame) : null,
      el("p", null, "Fix it and save: the page reloads after the next good build. Click outside to hide this."),
    ),
  );
  box.addEventListener("click", (e) => {
    if (e.target === box) box.remove();
  });
  if (old) old.replaceWith(box);
  else document.body.append(box);
}

// ---- the test-event panel ----

let eventsRendered = false;
function renderEvents(state) {
  if (eventsRendered) return;
  eventsRendered = true;
  if (state.events.length === 0) {
    eventsBox.append(el("p", null, "The package declares no events (or they are dropped at this trust)."));
    return;
  }
  const select = el("select", { id: "nh-event" }, ...state.events.map((e) => el("option", { value: e.id }, `${e.id} (${e.subject})`)));
  const subjectId = el("input", { id: "nh-subject-id", value: "r-1" });
  const projectId = el("input", { id: "nh-project-id", value: "dev-project" });
  const data = el("textarea", { id: "nh-data" });
  const session = el("textarea", { id: "nh-session" });
  session.value = JSON.stringify({ userId: "dev-user", projectIds: ["dev-project"] }, null, 1);
  const stateInput = el("textarea", { id: "nh-state" });
  stateInput.value = "{}";
  const verdict = el("div", { id: "nh-verdict", "aria-live": "polite" });
  const fill = () => {
    const e = state.events.find((x) => x.id === select.value);
    data.value = JSON.stringify(e ? e.sample : {}, null, 1);
  };
  select.addEventListener("change", fill);
  fill();
  const send = async () => {
    const parsed = {};
    for (const [name, input] of [["data", data], ["session", session], ["state", stateInput]]) {
      try {
        parsed[name] = JSON.parse(input.value);
      } catch (error) {
        show({ ok: false, error: `${name} is not JSON: ${error.message}` });
        return;
      }
    }
    const body = { event: select.value, subjectId: subjectId.value, projectId: projectId.value, ...parsed };
    const response = await control("publish", body);
    show(await response.json());
  };
  const show = (result) => {
    live.lastPublish = result;
    const pkg = config.dev.package;
    if (!result.ok) {
      verdict.replaceChildren(el("div", { className: "nh-verdict nh-verdict--denied", "data-verdict": "error" }, result.error));
      return;
    }
    const n = result.notification;
    verdict.replaceChildren(
      el(
        "div",
        { className: `nh-verdict nh-verdict--${result.admitted ? "admitted" : "denied"}`, "data-verdict": result.admitted ? "admitted" : "denied" },
        el("b", null, result.admitted ? "admitted: the sample session is notified" : "denied: the sample session hears nothing"),
        el("div", null, result.reason),
        result.admitted && n ? el("div", null, `notification: "${n.title}" (${n.tone})`) : null,
        result.admitted && n && n.nav
          ? el("button", { type: "button", className: "nh-open-nav", onClick: () => window.neuralisHost.openWidget(pkg, n.nav.widgetType, n.nav.initialState) }, `Open ${n.nav.widgetType}`)
          : null,
      ),
    );
  };
  eventsBox.append(
    el("label", { for: "nh-event" }, "event"),
    select,
    el("label", { for: "nh-subject-id" }, "subjectId"),
    subjectId,
    el("label", { for: "nh-project-id" }, "projectId"),
    projectId,
    el("label", { for: "nh-data" }, "data (JSON, checked against dataSchema)"),
    data,
    el("label", { for: "nh-session" }, "session (JSON)"),
    session,
    el("label", { for: "nh-state" }, "state (JSON)"),
    stateInput,
    el("button", { type: "button", id: "nh-publish", onClick: () => send().catch((e) => show({ ok: false, error: String(e) })) }, "Publish through visible()"),
    verdict,
  );
}

async function refresh() {
  const response = await control("state");
  if (!response.ok) throw new Error(`the state answered ${response.status}`);
  const state = await response.json();
  live.state = state;
  live.version = state.version;
  if (state.generation > live.generation) {
    location.reload();
    return;
  }
  renderBuild(state);
  renderDiagnostics(state);
  renderOverlay(state);
  renderEvents(state);
}

function onMessage(data) {
  const { generation, version } = JSON.parse(data);
  if (generation > live.generation) {
    location.reload();
  } else if (version !== live.version || live.state === null) {
    refresh().catch((error) => console.error("[neuralis dev] cannot read the state", error));
  }
}

// The live stream is Server-Sent Events read through fetch (an EventSource cannot send the key),
// opened again a second after it ends, as EventSource would.
async function listen() {
  const response = await control("live");
  if (!response.ok || !response.body) throw new Error(`the live stream answered ${response.status}`);
  live.connected = true;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6));
      if (data.length) onMessage(data.join("\n"));
    }
  }
}

function connect() {
  listen()
    .catch(() => {})
    .finally(() => {
      live.connected = false;
      setTimeout(connect, 1000);
    });
}

refresh()
  .then(connect)
  .catch((error) => console.error("[neuralis dev] cannot read the state", error));
