// Build the web client into dist/: one minified script, one stylesheet, index.html, and the rules pages
// rendered from docs/rules-<locale>.md (Markdown → HTML here, so the page ships no Markdown library).
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { marked } from "marked";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const docs = join(here, "..", "docs");
const LOCALES = ["en", "ro", "ms", "he"];
const watch = process.argv.includes("--watch");

const hash = (text) => createHash("sha256").update(text).digest("hex").slice(0, 10);

async function build() {
  await rm(dist, { recursive: true, force: true });
  await mkdir(join(dist, "rules"), { recursive: true });
  const common = { bundle: true, minify: true, write: false, logLevel: "warning", legalComments: "none" };
  const js = await esbuild.build({
    ...common,
    entryPoints: [join(here, "src", "main.js")],
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    outfile: join(dist, "app.js"),
  });
  const css = await esbuild.build({
    ...common,
    entryPoints: [join(here, "src", "styles.css")],
    target: ["chrome100", "firefox100", "safari15"],
    outfile: join(dist, "app.css"),
  });
  const jsText = js.outputFiles[0].text;
  const cssText = css.outputFiles[0].text;
  await writeFile(join(dist, "app.js"), jsText);
  await writeFile(join(dist, "app.css"), cssText);
  const html = (await readFile(join(here, "index.html"), "utf8"))
    .replace("__HASH_JS__", hash(jsText))
    .replace("__HASH_CSS__", hash(cssText));
  await writeFile(join(dist, "index.html"), html);

  for (const loc of LOCALES) {
    const source = join(docs, `rules-${loc}.md`);
    if (!existsSync(source)) continue; // the page then says the rules are not available
    const body = marked.parse(await readFile(source, "utf8"), { async: false, gfm: true });
    await writeFile(join(dist, "rules", `${loc}.html`), body);
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`client_web/dist: app.js ${kb(jsText.length)}, app.css ${kb(cssText.length)}`);
}

await build();
if (watch) {
  const { watch: fsWatch } = await import("node:fs");
  let timer = null;
  for (const dir of [join(here, "src"), docs]) {
    fsWatch(dir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => build().catch((e) => console.error(e.message)), 100);
    });
  }
}
