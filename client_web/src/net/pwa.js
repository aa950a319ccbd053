// @ts-check
// The service worker (dist/sw.js) that keeps the shell for offline use, registered once the page has loaded
// so it never competes with the first board.
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !globalThis.isSecureContext) return;
  const register = () => navigator.serviceWorker.register("/sw.js").catch(() => {});
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
