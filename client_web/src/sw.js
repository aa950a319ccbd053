// @ts-check
// The service worker (copied to dist/sw.js by build.mjs, which fills in the shell's list and a version).
// Pages come from the network; when it is out of reach, the offline page (the notice and the rules) answers
// instead of the browser's error. The shell's files (content-hashed) come from the cache, else the network.
// The API, the websocket and everything else are never touched. Type-checked as a worker (tsconfig.sw.json).
/// <reference lib="webworker" />
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const CACHE = `golfrace-shell-${VERSION}`;

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("golfrace-shell-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match("/offline.html")));
    return;
  }
  const path = url.pathname + url.search;
  if (SHELL.includes(path)) {
    event.respondWith(caches.match(path).then((hit) => hit ?? fetch(request)));
  }
});
