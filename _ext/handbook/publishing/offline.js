/*
 * offline.js: the service worker that keeps what a reader read
 * (publishing/offline.py; its docstring is the manual).  Served at the
 * site's root as handbook-sw.js, so that its scope is the whole site.
 */
"use strict";
const CACHE = "handbook-offline-1";
/** What a page never read answers offline: a page in the build's language
 * (offline.py writes it in), "{home}" the site's root. */
const UNREAD = /* UNREAD_PAGE */ null;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** The network's answer, kept; without a network, the one kept. */
const networkFirst = async (request) => {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === "basic") await cache.put(request, response.clone());
    return response;
  } catch (error) {
    const kept = (await cache.match(request))
      || (await cache.match(request, { ignoreSearch: true }));
    if (kept) return kept;
    if (request.mode === "navigate" && UNREAD) {
      // (a function: a replacement string would read $ in the address as a pattern)
      return new Response(UNREAD.replace("{home}", () => self.registration.scope),
        { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
    }
    throw error;
  }
};

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(networkFirst(request));
});

/** A page asks to keep what it loaded before the worker was there. */
self.addEventListener("message", (event) => {
  const urls = (event.data && event.data.keep) || [];
  const same = urls.filter((url) => new URL(url).origin === self.location.origin);
  event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(same.map(async (url) => {
    if (await cache.match(url)) return;
    try {
      const response = await fetch(url);
      if (response.ok) await cache.put(url, response);
    } catch (error) {
      // offline already: what is not kept is not kept
    }
  }))));
});
