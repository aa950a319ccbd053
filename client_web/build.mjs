// Build the web client into dist/: the minified script (with lazily loaded chunks), one stylesheet,
// index.html, the rules pages rendered from docs/rules-<locale>.md (Markdown → HTML here, so the page ships no
// Markdown library), the web app manifest, the offline page and the service worker that caches the shell.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { marked } from "marked";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const docs = join(here, "..", "docs");
const catalogs = join(here, "..", "server", "golfrace", "engine", "catalogs");
const LOCALES = ["en", "ro", "ms", "he"];
const THEME = "#0d3b2a";
const PROBE_MS = 3000; // how often the offline page asks whether the server is reachable again
const watch = process.argv.includes("--watch");

const hash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 10);
const escape = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

async function build() {
  await rm(dist, { recursive: true, force: true });
  await mkdir(join(dist, "rules"), { recursive: true });
  const common = { bundle: true, minify: true, write: false, logLevel: "warning", legalComments: "none", charset: "utf8" };
  const js = await esbuild.build({
    ...common,
    entryPoints: { app: join(here, "src", "main.js") },
    format: "esm",
    splitting: true, // a module loaded with import() gets a chunk of its own (none is, today)
    chunkNames: "chunks/[name]-[hash]",
    metafile: true,
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    outdir: dist,
  });
  // the shell's stylesheet and the learning/watch/stats views' own, in one file
  const css = await esbuild.build({
    ...common,
    stdin: { contents: '@import "./ui/styles.css";\n@import "./features/learn.css";\n', resolveDir: join(here, "src"), loader: "css" },
    target: ["chrome100", "firefox100", "safari15"],
    outfile: join(dist, "app.css"),
  });
  const shell = []; // what the service worker keeps for offline use
  let jsText = "";
  for (const file of js.outputFiles) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text);
    const path = "/" + relative(dist, file.path).replaceAll("\\", "/");
    if (path === "/app.js") jsText = file.text;
    else shell.push(path);
  }
  // a warning (an unbalanced brace, an unknown import) is a broken page on some screen: the build fails on it
  const warnings = [...js.warnings, ...css.warnings];
  if (warnings.length && !watch) throw new Error(`esbuild: ${warnings.length} warning(s), see above`);
  const cssText = css.outputFiles[0].text;
  await writeFile(join(dist, "app.css"), cssText);
  const assets = { js: `/app.js?v=${hash(jsText)}`, css: `/app.css?v=${hash(cssText)}` };
  shell.push(assets.js, assets.css);
  // the chunks app.js imports at once load with it, not after it (no extra round trip before the board)
  const eager = Object.entries(js.metafile.outputs)
    .filter(([out]) => out.endsWith("app.js"))
    .flatMap(([, meta]) => meta.imports.filter((i) => i.kind === "import-statement").map((i) => i.path));
  const head = [
    ...eager.map((path) => `<link rel="modulepreload" href="/${relative(dist, join(here, path)).replaceAll("\\", "/")}">`),
    '<link rel="manifest" href="/manifest.webmanifest">',
    '<link rel="apple-touch-icon" href="/icons/192.png">',
  ].join("\n");
  const html = (await readFile(join(here, "index.html"), "utf8"))
    .replace("__HASH_JS__", hash(jsText))
    .replace("__HASH_CSS__", hash(cssText))
    .replace("</head>", `${head}\n</head>`);
  await writeFile(join(dist, "index.html"), html);

  const texts = {};
  for (const loc of LOCALES) {
    const cat = JSON.parse(await readFile(join(catalogs, `${loc}.json`), "utf8"));
    texts[loc] = { dir: cat.dir, app: cat.ui.app_title, rules: cat.ui.nav_rules, ...cat.ui.offline_page };
    const source = join(docs, `rules-${loc}.md`);
    if (!existsSync(source)) continue; // the page then says the rules are not available
    const body = marked.parse(await readFile(source, "utf8"), { async: false, gfm: true });
    await writeFile(join(dist, "rules", `${loc}.html`), body);
    shell.push(`/rules/${loc}.html`);
  }
  const en = JSON.parse(await readFile(join(catalogs, "en.json"), "utf8"));
  const manifest = {
    name: en.ui.app_title,
    short_name: en.ui.app_title,
    description: en.ui.og.description,
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: THEME,
    theme_color: THEME,
    icons: [192, 512].map((n) => ({ src: `/icons/${n}.png`, sizes: `${n}x${n}`, type: "image/png", purpose: "any maskable" })),
  };
  await writeFile(join(dist, "manifest.webmanifest"), JSON.stringify(manifest, null, 2));
  await writeFile(join(dist, "offline.html"), offlinePage(texts, assets.css));
  shell.push("/offline.html", "/manifest.webmanifest", "/icons/192.png");
  const sw = (await readFile(join(here, "src", "sw.js"), "utf8"))
    .replace("__SHELL__", JSON.stringify(shell.sort()))
    .replace("__VERSION__", hash(JSON.stringify(shell) + jsText + cssText + html));
  await writeFile(join(dist, "sw.js"), sw);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const chunks = js.outputFiles.filter((f) => f.text !== jsText).map((f) => kb(f.text.length));
  const more = chunks.length ? ` (+ chunks ${chunks.join(", ")})` : "";
  console.log(`client_web/dist: app.js ${kb(jsText.length)}${more}, app.css ${kb(cssText.length)}`);
}

/** The page the service worker shows for any address while the browser is offline: the notice and the rules
 * (cached), in the player's last language (else the browser's, else English). */
function offlinePage(texts, cssHref) {
  const en = texts.en;
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="${THEME}">
<title>${escape(en.title)} · ${escape(en.app)}</title>
<link rel="stylesheet" href="${cssHref}">
</head>
<body>
<main class="offline-page" id="main">
  <section class="panel offline-notice" aria-labelledby="offline-title">
    <h1 id="offline-title">${escape(en.title)}</h1>
    <p class="offline-body">${escape(en.body)}</p>
    <button type="button" class="btn primary retry">${escape(en.retry)}</button>
  </section>
  <article class="rules-page" aria-labelledby="offline-rules-title">
    <h2 id="offline-rules-title">${escape(en.rules)}</h2>
    <div class="rules-body"></div>
  </article>
</main>
<script>
(function () {
  var T = ${JSON.stringify(texts)};
  var lang = "en";
  try { lang = localStorage.getItem("golfrace.lang") || ""; } catch (e) { lang = ""; }
  if (!T[lang]) {
    var tags = navigator.languages || [navigator.language || "en"];
    lang = "en";
    for (var i = 0; i < tags.length; i++) {
      var base = String(tags[i]).toLowerCase().split("-")[0];
      if (base === "iw") base = "he";
      if (T[base]) { lang = base; break; }
    }
  }
  var t = T[lang];
  document.documentElement.lang = lang;
  document.documentElement.dir = t.dir;
  document.title = t.title + " · " + t.app;
  document.getElementById("offline-title").textContent = t.title;
  document.querySelector(".offline-body").textContent = t.body;
  document.getElementById("offline-rules-title").textContent = t.rules;
  var retry = document.querySelector(".retry");
  retry.textContent = t.retry;
  retry.addEventListener("click", function () { location.reload(); });
  fetch("/rules/" + lang + ".html").then(function (r) { return r.ok ? r.text() : ""; }).then(function (html) {
    document.querySelector(".rules-body").innerHTML = html;
    document.documentElement.dataset.rules = "1";
  }).catch(function () {});
  // back online (the event may come before the network is really back): the game again once the server answers
  function probe() {
    fetch("/healthz", { cache: "no-store" }).then(function (r) { if (r.ok) location.reload(); }).catch(function () {});
  }
  window.addEventListener("online", probe);
  setInterval(probe, ${PROBE_MS});
})();
</script>
</body>
</html>
`;
}

await build();
if (watch) {
  const { watch: fsWatch } = await import("node:fs");
  let timer = null;
  for (const dir of [join(here, "src"), docs, catalogs]) {
    fsWatch(dir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => build().catch((e) => console.error(e.message)), 100);
    });
  }
}
