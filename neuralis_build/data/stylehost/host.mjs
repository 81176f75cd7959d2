// The Node side of `neuralis-build ui` for a package with stylesheet tools: one esbuild build through
// esbuild's JS API (the pinned esbuild of ./package-lock.json, running the toolchain's verified binary
// through ESBUILD_BINARY_PATH), with one plugin that hands each stylesheet to the tools the author
// installed: sass (or sass-embedded) for .scss/.sass, less for .less, and PostCSS with the package's own
// config for every stylesheet when the package has one. Nothing here compiles CSS itself.
//
// Request (JSON on stdin): {root, modules, options, metafile, postcss, mode, loaded}. Answer (JSON on stdout):
// {ok, errors, warnings, reads, loaded}; the build's files and metafile are written like the CLI writes them,
// and each stylesheet as the tools handed it to esbuild into the folder `loaded` names (answer.loaded:
// [stylesheet, copy] pairs), for the build to read what its host.css is made of.

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PLUGIN = "neuralis-styles";
const STYLESHEET = /\.(css|scss|sass|less)$/;
const LOCAL = /\.module\.(css|scss|sass|less)$/; // CSS modules, as esbuild names .module.css

const request = JSON.parse(fs.readFileSync(0, "utf8"));
const root = request.root;
const own = createRequire(path.join(request.modules, "package.json")); // the toolchain's esbuild and config loader
const author = createRequire(path.join(root, "package.json")); // the author's tools, resolved as Node would
const reads = new Set(); // files the tools read that esbuild's metafile cannot know (partials, configs)
const loaded = []; // [stylesheet, copy of what esbuild got]

process.env.NODE_ENV ??= request.mode; // what a PostCSS config function and Tailwind read

class Missing extends Error {
  constructor(tool, file) {
    super(`${tool} is not installed`);
    this.tool = tool;
    this.file = file;
  }
}

function authorTool(names, file) {
  for (const name of names) {
    try {
      return { name, module: author(name), version: versionOf(name) };
    } catch (error) {
      if (error.code !== "MODULE_NOT_FOUND" || !String(error.message).includes(`'${name}'`)) throw error;
    }
  }
  throw new Missing(names[0], file);
}

function versionOf(name) {
  // its package.json, found up from its main file: not every package exports "./package.json"
  for (let dir = path.dirname(author.resolve(name)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) {
      const data = JSON.parse(fs.readFileSync(manifest, "utf8"));
      if (data.name === name) return data.version;
    }
  }
  return undefined;
}

function nodeModulesDirs(from) {
  const dirs = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      const candidate = path.join(dir, "node_modules");
      if (fs.existsSync(candidate)) dirs.push(candidate);
    }
    if (path.dirname(dir) === dir) return dirs;
  }
}

function inlineMap(map, file) {
  // Sources relative to the stylesheet (esbuild resolves them from its folder), never absolute: the map's
  // text also lands in a --sourcemap build's host.js.map, which must not name this machine's folders and
  // must be the same bytes wherever the package is built.
  const data = typeof map === "string" ? JSON.parse(map) : { ...map };
  const dir = path.dirname(file);
  data.sources = (data.sources ?? []).map((source) => {
    const full = source.startsWith("file:") ? fileURLToPath(source) : path.resolve(dir, data.sourceRoot ?? "", source);
    return path.relative(dir, full).split(path.sep).join("/");
  });
  delete data.sourceRoot;
  delete data.file;
  const json = JSON.stringify(data);
  return `\n/*# sourceMappingURL=data:application/json;base64,${Buffer.from(json).toString("base64")} */\n`;
}

function location(file, line, column, lineText) {
  // esbuild's locations: line 1-based, column 0-based
  return file ? { file, line, column: Math.max(0, column), lineText: lineText ?? "" } : null;
}

function toolError(tool, text, where) {
  return { errors: [{ text, location: where, detail: { tool: tool.name, version: tool.version } }] };
}

function sassCompile(file, tool) {
  const sass = tool.module;
  const warnings = [];
  const logger = {
    warn(message, options) {
      const span = options.span;
      const where = span?.url ? location(fileURLToPath(span.url), span.start.line + 1, span.start.column) : null;
      const kind = options.deprecation ? `deprecated: ${options.deprecationType?.id ?? "sass"}: ` : "";
      warnings.push({ text: `${kind}${message}`, location: where, detail: { tool: tool.name, version: tool.version } });
    },
    debug() {},
  };
  const importers = typeof sass.NodePackageImporter === "function" ? [new sass.NodePackageImporter(root)] : [];
  try {
    const out = sass.compile(file, {
      style: "expanded",
      sourceMap: true,
      sourceMapIncludeSources: true,
      loadPaths: nodeModulesDirs(root),
      importers,
      logger,
    });
    for (const url of out.loadedUrls) if (url.protocol === "file:") reads.add(fileURLToPath(url));
    return { css: out.css, map: out.sourceMap, warnings };
  } catch (error) {
    const span = error.span;
    const where = span?.url ? location(fileURLToPath(span.url), span.start.line + 1, span.start.column) : null;
    return { ...toolError(tool, error.sassMessage ?? String(error.message), where), warnings };
  }
}

async function lessCompile(file, tool, text) {
  const less = tool.module;
  try {
    const out = await less.render(text, {
      filename: file,
      paths: [path.dirname(file), ...nodeModulesDirs(root)],
      sourceMap: { outputSourceFiles: true },
    });
    for (const imported of out.imports) reads.add(path.resolve(path.dirname(file), imported));
    return { css: out.css, map: out.map, warnings: [] };
  } catch (error) {
    const where = error.filename ? location(error.filename, error.line ?? 0, error.column ?? 0) : null;
    return toolError(tool, String(error.message), where);
  }
}

function packageName(id) {
  const parts = id.split("/");
  return id.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

let postcssSetup; // loaded once, on the first stylesheet: postcss, and the config with its plugins
async function loadPostcss() {
  if (postcssSetup === undefined) {
    const configFile = path.join(root, request.postcss);
    const tool = authorTool(["postcss"], configFile);
    const loadConfig = own("postcss-load-config");
    let config;
    try {
      config = await loadConfig({ cwd: root, env: request.mode }, root, { stopDir: root });
    } catch (error) {
      const text = String(error?.message ?? error);
      const missing = /Cannot find (?:module|package) '([^']+)'/.exec(text);
      if (missing && !missing[1].startsWith(".") && !path.isAbsolute(missing[1])) {
        throw new Missing(packageName(missing[1]), configFile);
      }
      postcssSetup = toolError(
        { name: "postcss", version: tool.version },
        `the PostCSS config cannot be loaded: ${text.split("\n")[0]}`,
        location(configFile, 0, 0),
      );
      return postcssSetup;
    }
    reads.add(config.file);
    postcssSetup = { tool, config };
  }
  return postcssSetup;
}

async function postcssProcess(file, css, prev) {
  const setup = await loadPostcss();
  if (setup.errors) return setup;
  const { tool, config } = setup;
  const postcss = tool.module;
  try {
    const result = await postcss(config.plugins).process(css, {
      ...config.options,
      from: file,
      to: file,
      map: { inline: false, annotation: false, sourcesContent: true, prev: prev ?? undefined },
    });
    const warnings = result.warnings().map((w) => ({
      text: `${w.plugin ? `${w.plugin}: ` : ""}${w.text}`,
      location: location(w.node?.source?.input?.file ?? file, w.line ?? 0, (w.column ?? 1) - 1),
      detail: { tool: "postcss", version: tool.version },
    }));
    for (const m of result.messages) if (m.type === "dependency" && m.file) reads.add(m.file);
    return { css: result.css, map: result.map.toJSON(), warnings };
  } catch (error) {
    const where = error.file ? location(error.file, error.line ?? 0, (error.column ?? 1) - 1, error.source) : null;
    const who = error.plugin ? { name: error.plugin } : { name: "postcss", version: tool.version };
    return toolError(who, error.reason ?? error.message, where);
  }
}

async function load(args) {
  const file = args.path;
  const ext = path.extname(file);
  let compiled;
  try {
    if (ext === ".scss" || ext === ".sass") {
      compiled = sassCompile(file, authorTool(["sass", "sass-embedded"], file));
    } else if (ext === ".less") {
      compiled = await lessCompile(file, authorTool(["less"], file), await fs.promises.readFile(file, "utf8"));
    } else {
      compiled = { css: await fs.promises.readFile(file, "utf8"), map: null, warnings: [] };
    }
    if (compiled.errors) return compiled;
    if (request.postcss) {
      const processed = await postcssProcess(file, compiled.css, compiled.map);
      if (processed.errors) return { ...processed, warnings: compiled.warnings };
      compiled = { ...processed, warnings: [...compiled.warnings, ...processed.warnings] };
    }
  } catch (error) {
    if (error instanceof Missing) {
      return { errors: [{ text: `${error.tool} is not installed`, detail: { missing: error.tool, file: error.file } }] };
    }
    throw error;
  }
  const contents = compiled.map ? compiled.css + inlineMap(compiled.map, file) : compiled.css;
  if (request.loaded) {
    const copy = path.join(request.loaded, `${loaded.length}.css`);
    await fs.promises.writeFile(copy, contents);
    loaded.push([file, copy]);
  }
  return {
    contents,
    loader: LOCAL.test(file) ? "local-css" : "css",
    resolveDir: path.dirname(file),
    warnings: compiled.warnings,
  };
}

const plugin = {
  name: PLUGIN,
  setup(build) {
    build.onLoad({ filter: request.postcss ? STYLESHEET : /\.(scss|sass|less)$/, namespace: "file" }, load);
  },
};

function message(m) {
  const loc = m.location;
  return {
    text: m.text,
    file: loc?.file || null,
    line: loc ? loc.line : null,
    column: loc ? loc.column + 1 : null, // 1-based, as the CLI's visualstudio lines give it
    notes: (m.notes ?? []).map((n) => ({ text: n.text, file: n.location?.file ?? null, line: n.location?.line ?? null })),
    plugin: m.pluginName || null,
    detail: m.detail && typeof m.detail === "object" ? m.detail : null,
  };
}

const answer = { ok: false, errors: [], warnings: [], reads: [], loaded: [] };
try {
  const esbuild = own("esbuild");
  const result = await esbuild.build({
    ...request.options,
    absWorkingDir: root,
    metafile: true,
    write: true,
    logLevel: "silent",
    plugins: [plugin],
  });
  fs.writeFileSync(request.metafile, JSON.stringify(result.metafile));
  Object.assign(answer, { ok: true, warnings: result.warnings.map(message) });
} catch (error) {
  if (!Array.isArray(error.errors)) throw error; // not a build failure: a crash, reported by node itself
  Object.assign(answer, { errors: error.errors.map(message), warnings: (error.warnings ?? []).map(message) });
}
answer.reads = [...reads].sort();
answer.loaded = loaded;
process.stdout.write(JSON.stringify(answer));
process.exitCode = answer.ok ? 0 : 1;
