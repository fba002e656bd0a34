// sw.js: bankviz's service worker. The app's workers share the page's memory, which a browser
// allows only to a cross-origin isolated page (Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp). `scripts/web.sh --serve` sends those headers; a
// static host that cannot (a course's web space, GitHub Pages) gets them from this worker, which
// adds them to every same-origin response. The page registers it and reloads once (bankviz-page.js).
'use strict';
self.addEventListener('install', function () { self.skipWaiting(); });
self.addEventListener('activate', function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener('fetch', function (e) {
  var req = e.request;
  if (req.cache === 'only-if-cached' && req.mode !== 'same-origin') return;
  if (new URL(req.url).origin !== self.location.origin) return;
  e.respondWith(fetch(req).then(function (res) {
    if (res.status === 0) return res;
    var h = new Headers(res.headers);
    h.set('Cross-Origin-Opener-Policy', 'same-origin');
    h.set('Cross-Origin-Embedder-Policy', 'require-corp');
    h.set('Cross-Origin-Resource-Policy', 'same-origin');
    return new Response(res.body, {status: res.status, statusText: res.statusText, headers: h});
  }));
});
