// The host page: imports each package's UI module the way the host does, calls its
// install<Name>HostComponents with the host API v1, and renders every declared surface: react
// surfaces through the registered components, iframe surfaces from their served roots, dock
// entries as actions that open their widget. A surface the host could not draw shows the host's
// "cannot be rendered" placeholder with the reason. A surface whose component throws, on its first
// render or at any time after, is marked "failed" with the error. window.__neuralisHost (and the JSON
// element #neuralis-host-status) is the machine-readable status the tests read.
import * as React from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";

const h = React.createElement;
const INSTALL = /^install[A-Z][A-Za-z0-9]*HostComponents$/;
const HOST_API = ["registerWidget", "registerCard"];
const config = JSON.parse(document.getElementById("neuralis-host-config").textContent);
const status = Object.assign(window.__neuralisHost || {}, {
  state: "loading",
  hostApiVersion: config.hostApiVersion,
  trust: config.trust,
  packages: [],
  surfaces: [],
  opened: null,
});
status.errors = status.errors || [];
status.apiErrors = [];
window.__neuralisHost = status;

function publish() {
  const el = document.getElementById("neuralis-host-status");
  if (el) el.textContent = JSON.stringify(status);
  document.documentElement.dataset.neuralisHost = status.state;
  window.dispatchEvent(new CustomEvent("neuralis-host-status", { detail: status }));
}

function pageError(message, error) {
  status.errors.push(message);
  console.error(`[neuralis host] ${message}`, ...(error ? [error] : []));
}

function describe(args) {
  return args
    .map((a) => (typeof a === "string" ? JSON.stringify(a) : typeof a === "function" ? a.name || "function" : typeof a))
    .join(", ");
}

function surfaceKey(pkg, surface) {
  return `${pkg.name}#${surface.kind}:${surface.id}`;
}

// ---- the host API v1 (docs/design.md): what install<Name>HostComponents receives ----

function isComponent(value) {
  return typeof value === "function" || (typeof value === "object" && value !== null && "$$typeof" in value);
}

function hostApi(pkg, registry) {
  const declared = (kind, key) =>
    pkg.surfaces.some(
      (s) => s.kind === kind && s.renderer === "react" && (kind === "widget" ? s.surface.type : s.id) === key,
    );
  const register = (call, kind, map) =>
    function (key, component) {
      if (typeof key !== "string" || !isComponent(component)) {
        apiError(pkg, `host.${call}(${describe([key, component])}): expected (${kind === "widget" ? "type" : "id"}: string, component: a React component)`);
        return;
      }
      if (!declared(kind, key)) {
        console.warn(`[neuralis host] ${pkg.name}: host.${call}("${key}"): package.json declares no react ${kind} ${kind === "widget" ? "of type" : "with id"} "${key}"; the host never shows it`);
      }
      map.set(key, component);
    };
  const api = {
    registerWidget: register("registerWidget", "widget", registry.widgets),
    registerCard: register("registerCard", "card", registry.cards),
  };
  return new Proxy(api, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      return (...args) =>
        apiError(pkg, `host.${String(prop)}(${describe(args)}) is not part of the host API v1 (it has ${HOST_API.join(", ")})`);
    },
  });
}

function apiError(pkg, message) {
  const text = `${pkg.name}: ${message}`;
  status.apiErrors.push(text);
  pageError(text);
}

function explainImportError(pkg, error) {
  const text = String((error && error.message) || error);
  const missing = /module '([^']+)' does not provide an export named '([^']+)'/.exec(text);
  if (missing) {
    const [, id, name] = missing;
    const known = (config.sharedExports && config.sharedExports[id]) || null;
    const offer = known ? ` (it has ${known.join(", ")})` : "";
    return `${pkg.module.entry} imports "${name}" from "${id}", which the host does not provide${offer}`;
  }
  return `${pkg.module.entry} failed to load: ${text}`;
}

// ---- loading the modules ----

async function loadModule(pkg, registry) {
  const mod = pkg.module;
  if (!mod || mod.refused) return mod ? mod.refused : null;
  let ns;
  try {
    ns = await import(mod.url);
  } catch (error) {
    const reason = explainImportError(pkg, error);
    pageError(`${pkg.name}: ${reason}`, error);
    return reason;
  }
  const names = Object.keys(ns).filter((k) => INSTALL.test(k) && typeof ns[k] === "function");
  if (names.length === 0) {
    return `${mod.entry} exports no install<Name>HostComponents function`;
  }
  try {
    ns[names[0]](hostApi(pkg, registry));
  } catch (error) {
    const reason = `${names[0]} threw: ${(error && error.message) || error}`;
    pageError(`${pkg.name}: ${reason}`, error);
    return reason;
  }
  return null;
}

// ---- rendering ----

// Catches what the component throws while rendering, in an effect or in a later render (an event that
// re-renders into an error): the tree is unmounted and the surface marked failed (``fail`` below).
class Boundary extends React.Component {
  constructor(props) {
    super(props);
    this.state = { error: null };
  }
  static getDerivedStateFromError(error) {
    return { error };
  }
  componentDidCatch(error) {
    this.props.onError(error);
  }
  render() {
    return this.state.error ? null : this.props.children;
  }
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "className") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2).toLowerCase(), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function placeholderNode(kind, reason) {
  return el(
    "div",
    { className: "nh-placeholder", role: "status" },
    el("strong", null, `This ${kind} cannot be rendered`),
    el("p", { className: "nh-placeholder__reason" }, reason),
  );
}

const views = new Map(); // surface key -> { entry, panel, pkg, render(initialState), fail(error) }

// ---- failures after mount: errors no boundary of the page sees ----
// An error thrown in an event handler, a timer, a promise or another React renderer (react-three-fiber
// draws through its own) reaches the window uncaught. It is the surface's when it is thrown while an
// event is dispatched in the surface's panel; otherwise it is the package's whose module URL is in its
// stack: its surface when it has one react surface on the page, the package itself when it has several.

function messageOf(error) {
  if (error instanceof Error) return error.message || error.name;
  if (error && typeof error === "object" && typeof error.message === "string") return error.message;
  return String(error);
}

function stackOf(error) {
  return error && typeof error.stack === "string" ? error.stack : null;
}

const EVENTS = [
  "click", "dblclick", "auxclick", "contextmenu", "pointerdown", "pointerup", "pointermove", "mousedown",
  "mouseup", "mousemove", "keydown", "keyup", "keypress", "beforeinput", "input", "change", "select", "submit",
  "reset", "focusin", "focusout", "wheel", "scroll", "touchstart", "touchend", "touchmove", "dragstart",
  "dragover", "dragend", "drop", "copy", "cut", "paste", "compositionend",
];
let dispatching = null; // the view an event is being dispatched in, from its capture to its bubbling

function trackEvents(panel, view) {
  const done = () => {
    if (dispatching === view) dispatching = null;
  };
  for (const type of EVENTS) {
    panel.addEventListener(type, () => {
      dispatching = view;
      setTimeout(done); // an event that does not bubble back, or whose propagation was stopped
    }, true);
    panel.addEventListener(type, done);
  }
}

function moduleBase(pkg) {
  const mod = pkg.module;
  if (!mod || mod.refused || !mod.url.endsWith(mod.entry)) return null;
  return new URL(mod.url.slice(0, mod.url.length - mod.entry.length), location.href).href;
}

function packagesInStack(stack) {
  const found = [];
  for (const pkg of config.packages) {
    const base = moduleBase(pkg);
    const at = base ? stack.indexOf(base) : -1;
    if (at >= 0) found.push([at, pkg]);
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, pkg]) => pkg);
}

function reactViews(pkg) {
  return [...views.values()].filter((v) => v.pkg === pkg && v.entry.renderer === "react" && v.entry.status !== "placeholder");
}

function packageFailed(pkg, error) {
  const summary = status.packages.find((p) => p.name === pkg.name);
  const message = messageOf(error);
  if (!summary || summary.errors.length >= 20) return;
  summary.errors.push(message);
  const section = document.querySelector(`section.nh-package[data-package="${CSS.escape(pkg.name)}"]`);
  if (section && !section.querySelector(".nh-package__error")) {
    const text = `code of this package threw, outside any one surface: ${message}`;
    section.querySelector(".nh-package__head").after(el("p", { className: "nh-package__error", role: "alert" }, text));
  }
  publish();
}

function uncaught(error) {
  if (dispatching) {
    dispatching.fail(error);
    return;
  }
  const stack = stackOf(error);
  const named = stack ? packagesInStack(stack) : [];
  for (const pkg of named) {
    const shown = reactViews(pkg);
    if (shown.length === 1) {
      shown[0].fail(error);
      return;
    }
    if (shown.length > 1) {
      packageFailed(pkg, error);
      return;
    }
  }
  if (named.length) packageFailed(named[0], error); // a provider's code, with no surface of its own here
}

addEventListener("error", (event) => uncaught(event.error ?? event.message));
addEventListener("unhandledrejection", (event) => uncaught(event.reason));

function failedNode(kind, reason, stack) {
  return el(
    "div",
    { className: "nh-failed", role: "alert" },
    el("strong", null, `This ${kind} failed`),
    el("p", { className: "nh-failed__reason" }, reason),
    stack ? el("details", null, el("summary", null, "stack"), el("pre", null, stack)) : null,
  );
}

function mountSurface(pkg, surface, registry, moduleReason, parent) {
  const entry = {
    package: pkg.name,
    kind: surface.kind,
    id: surface.id,
    type: surface.surface.type || null,
    renderer: surface.renderer,
    status: "loading",
    reason: null,
    error: null,
  };
  status.surfaces.push(entry);
  const body = el("div", { className: "nh-surface__body" });
  const panel = el(
    "article",
    {
      className: `nh-surface nh-surface--${surface.kind}`,
      id: `surface-${pkg.base.split("/")[2]}-${surface.id}`,
      "data-package": pkg.name,
      "data-kind": surface.kind,
      "data-surface-id": surface.id,
      "data-widget-type": surface.surface.type || null,
      "data-renderer": surface.renderer || "",
    },
    el(
      "header",
      { className: "nh-surface__head" },
      el("span", { className: "nh-badge" }, `${surface.kind} · ${surface.renderer || "?"}`),
      el("h3", null, surface.title),
    ),
    body,
  );
  // in the document before anything renders: a component that measures its element on mount (apexcharts,
  // a chart that sizes itself) finds nothing in a detached node
  parent.append(panel);
  const setStatus = (value, reason) => {
    entry.status = value;
    entry.reason = reason || null;
    panel.dataset.status = value;
    publish();
  };
  const refuse = (reason) => {
    body.replaceChildren(placeholderNode(surface.kind, reason));
    console.warn(`[neuralis host] ${pkg.name}: the ${surface.kind} "${surface.id}" cannot be rendered: ${reason}`);
    setStatus("placeholder", reason);
  };
  // The first error is the surface's reason; the page says it above the body, which keeps what is still drawn.
  const fail = (error) => {
    if (entry.status === "failed" || surface.renderer !== "react") return; // an iframe's errors stay in its frame
    const message = messageOf(error);
    const why = `the component threw: ${message}`;
    entry.error = { message, stack: stackOf(error) };
    body.before(failedNode(surface.kind, why, entry.error.stack));
    pageError(`${pkg.name}: the ${surface.kind} "${surface.id}" ${why}`);
    setStatus("failed", why);
  };
  const view = { entry, panel, pkg, render: () => {}, fail };
  views.set(surfaceKey(pkg, surface), view);

  const reason = surface.refused || (surface.renderer === "react" ? moduleReason : null);
  if (reason) {
    refuse(reason);
    return panel;
  }
  if (surface.renderer === "iframe") {
    const frame = el("iframe", {
      src: surface.src,
      title: surface.title,
      sandbox: "allow-scripts allow-forms allow-popups",
      "data-asset-mode": surface.assetMode,
    });
    frame.addEventListener("load", () => setStatus("rendered"));
    body.append(frame);
    return panel;
  }
  const map = surface.kind === "widget" ? registry.widgets : registry.cards;
  const key = surface.kind === "widget" ? surface.surface.type : surface.id;
  const Component = map.get(key);
  if (!Component) {
    const call = surface.kind === "widget" ? "registerWidget" : "registerCard";
    refuse(`no component was registered for the react ${surface.kind} "${key}" (call host.${call}("${key}", Component))`);
    return panel;
  }
  // A root per surface: what escapes its boundary is still this surface's
  const root = createRoot(body, { onUncaughtError: fail });
  trackEvents(panel, view);
  let opened = 0;
  view.render = (initialState) => {
    opened += 1;
    const props = surface.kind === "widget" ? { surface: surface.surface, initialState } : { surface: surface.surface };
    flushSync(() => root.render(h(Boundary, { key: opened, onError: fail }, h(Component, props))));
    if (entry.status !== "failed") setStatus("rendered");
  };
  view.render(undefined);
  return panel;
}

/** Open a widget as the host does from a dock entry or a notification's nav (initialState optional). */
function openWidget(packageName, widgetType, initialState) {
  for (const view of views.values()) {
    if (view.entry.package === packageName && view.entry.kind === "widget" && view.entry.type === widgetType) {
      for (const other of views.values()) delete other.panel.dataset.open;
      view.panel.dataset.open = "true";
      view.panel.scrollIntoView({ block: "nearest" });
      if (view.entry.renderer === "react" && view.entry.status === "rendered") view.render(initialState);
      status.opened = { package: packageName, widgetType, initialState: initialState ?? null };
      publish();
      return true;
    }
  }
  pageError(`${packageName}: no widget of type "${widgetType}" to open`);
  return false;
}

function dockNode(pkg, surface) {
  const entry = { package: pkg.name, kind: "dock", id: surface.id, type: null, renderer: null, status: "rendered", reason: null, error: null };
  status.surfaces.push(entry);
  const button = el(
    "button",
    {
      type: "button",
      className: "nh-dock__entry",
      "data-surface-id": surface.id,
      "data-opens": surface.opens,
      onClick: () => openWidget(pkg.name, surface.opens),
    },
    surface.title,
  );
  if (surface.refused) {
    entry.status = "placeholder";
    entry.reason = surface.refused;
    button.disabled = true;
    button.title = surface.refused;
  }
  return button;
}

function diagnosticsNode(pkg) {
  const list = pkg.diagnostics;
  if (list.length === 0) return el("p", { className: "nh-diags nh-diags--ok" }, "check: no findings");
  return el(
    "ul",
    { className: "nh-diags" },
    ...list.map((d) =>
      el(
        "li",
        { className: `nh-diag nh-diag--${d.severity}`, "data-code": d.code },
        el("b", null, `${d.severity} ${d.code}`),
        ` ${d.file}${d.line ? `:${d.line}:${d.column}` : ""}${d.pointer ? ` ${d.pointer}` : ""}: ${d.message}`,
        d.hint ? el("small", null, ` hint: ${d.hint}`) : null,
      ),
    ),
  );
}

async function main() {
  const mount = document.getElementById("neuralis-host");
  const registries = new Map();
  const reasons = new Map();
  // Modules load in page order, each install function runs before any surface renders (as the host does).
  for (const pkg of config.packages) {
    const registry = { widgets: new Map(), cards: new Map() };
    registries.set(pkg.name, registry);
    reasons.set(pkg.name, await loadModule(pkg, registry));
  }
  for (const pkg of config.packages) {
    const registry = registries.get(pkg.name);
    const moduleReason = reasons.get(pkg.name);
    status.packages.push({
      name: pkg.name,
      id: pkg.id,
      trust: pkg.trust,
      refused: pkg.refused,
      module: pkg.module ? { status: moduleReason ? "refused" : "accepted", reason: moduleReason } : null,
      registered: { widgets: [...registry.widgets.keys()].sort(), cards: [...registry.cards.keys()].sort() },
      diagnostics: pkg.diagnostics.map((d) => ({ severity: d.severity, code: d.code })),
      errors: [], // uncaught errors of its code that no one surface of it can be blamed for
    });
    const docks = pkg.surfaces.filter((s) => s.kind === "dock");
    const shown = pkg.surfaces.filter((s) => s.kind !== "dock");
    const section = el(
      "section",
      { className: "nh-package", "data-package": pkg.name },
      el(
        "header",
        { className: "nh-package__head" },
        el("h2", null, pkg.title),
        el("code", null, pkg.name),
        el("span", { className: "nh-badge" }, pkg.trust),
        pkg.module
          ? el("span", { className: `nh-badge nh-badge--${moduleReason ? "bad" : "ok"}` }, moduleReason ? "module refused" : "module accepted")
          : null,
      ),
      pkg.refused ? el("p", { className: "nh-refused", role: "alert" }, pkg.refused) : null,
      docks.length ? el("nav", { className: "nh-dock", "aria-label": "dock" }, ...docks.map((s) => dockNode(pkg, s))) : null,
      el("div", { className: "nh-surfaces" }),
      // The dev server's side panel shows live diagnostics; a static page shows them per package.
      config.dev
        ? null
        : el(
            "details",
            { className: "nh-diags-panel", open: pkg.diagnostics.length ? "" : null },
            el("summary", null, `Diagnostics (${pkg.diagnostics.length})`),
            diagnosticsNode(pkg),
          ),
    );
    mount.append(section);
    const grid = section.querySelector(".nh-surfaces");
    for (const surface of shown) mountSurface(pkg, surface, registry, moduleReason, grid);
    if (shown.length === 0 && docks.length === 0) grid.append(el("p", { className: "nh-empty" }, "This package declares no surfaces."));
  }
  status.state = "ready";
  publish();
}

window.neuralisHost = { openWidget, status };
main().catch((error) => {
  pageError(`the host page failed: ${(error && error.message) || error}`, error);
  status.state = "failed";
  publish();
});
