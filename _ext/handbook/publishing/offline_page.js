/*
 * offline_page.js: every page registers the service worker (publishing/offline.py)
 * and has it keep the page and what the page loaded before it was there.
 */
(() => {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const worker = new URL("../handbook-sw.js", document.currentScript.src);
  const keep = () => {
    const urls = [window.location.href.split("#")[0],
      ...performance.getEntriesByType("resource").map((entry) => entry.name)];
    navigator.serviceWorker.ready
      .then((registration) => registration.active && registration.active.postMessage({ keep: urls }));
  };
  window.addEventListener("load", () => {
    navigator.serviceWorker.register(worker.href)
      .then(keep)
      .catch((error) => console.warn("offline:", error));
  });
})();
