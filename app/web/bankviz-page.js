// bankviz-page.js: the page's side of the browser platform (app/gui/platform/platform_web.cpp).
// It makes the page cross-origin isolated (threads), starts the app with the address's link
// (app/gui/shell/link.h reads it: the page only passes it on), keeps the settings in
// localStorage, turns exports into downloads and hands picked files to the app.
'use strict';
(function () {
  var statusLine = document.getElementById('status');
  var canvas = document.getElementById('canvas');
  var picker = document.getElementById('bankviz-file');
  var kSettings = 'bankviz:';  // localStorage keys: 'bankviz:' + the file's path in the page

  function say(text, isError) {
    statusLine.textContent = text;
    statusLine.className = isError ? 'error' : '';
    statusLine.style.display = text ? '' : 'none';
  }

  // [1] Threads need SharedArrayBuffer, which a browser gives only to a cross-origin isolated
  // page. Our server sends the headers; elsewhere sw.js adds them, after one reload.
  if (!window.crossOriginIsolated) {
    if (!window.isSecureContext || !navigator.serviceWorker) {
      say('bankviz needs a secure page (https:, or http://localhost) to run its workers.', true);
      return;
    }
    if (sessionStorage.getItem('bankviz-isolating')) {
      sessionStorage.removeItem('bankviz-isolating');
      say('This browser did not isolate the page (Cross-Origin-Opener-Policy and ' +
          'Cross-Origin-Embedder-Policy), which bankviz needs for its workers: serve it with ' +
          'scripts/web.sh --serve or a server sending those headers.', true);
      return;
    }
    sessionStorage.setItem('bankviz-isolating', '1');
    navigator.serviceWorker.register('sw.js').then(function () {
      return navigator.serviceWorker.ready;
    }).then(function () {
      location.reload();
    }, function (e) {
      say('Cannot start bankviz\'s service worker: ' + e, true);
    });
    return;
  }
  sessionStorage.removeItem('bankviz-isolating');

  // [2] The app's command line: the link, and the page's size unless the link gives one.
  var hash = location.hash || '#';
  var args = ['--link', hash];
  var fixedSize = /(^|[#&])size=/.test(hash);
  function viewport() {
    return [Math.max(640, window.innerWidth), Math.max(400, window.innerHeight)];
  }
  if (!fixedSize) args.push('--size', viewport().join('x'));

  var started = false;
  window.Module = {
    canvas: canvas,
    arguments: args,
    preRun: [function () {
      var M = window.Module;
      M.ENV.BANKVIZ_DATA_DIR = '/bankviz';
      M.ENV.XDG_CONFIG_HOME = '/config';
      M.ENV.HOME = '/home/web';
      M.ENV.TMPDIR = '/tmp';
      M.FS.mkdirTree('/config/bankviz');
      M.FS.mkdirTree('/home/web');
      M.FS.mkdirTree('/uploads');
      // The settings kept in this browser, back where the app reads them.
      for (var i = 0; i < localStorage.length; ++i) {
        var key = localStorage.key(i);
        if (key.indexOf(kSettings + '/config/') !== 0) continue;
        try {
          M.FS.writeFile(key.substring(kSettings.length), localStorage.getItem(key));
        } catch (e) {
          console.warn('bankviz: a kept setting could not be restored: ' + e);
        }
      }
    }],
    print: function (text) { console.log(text); },
    printErr: function (text) {
      console.warn(text);
      if (!started) say(text, true);
    },
    // platform_web.cpp deliver_file(): an export as a download.
    bankvizDownload: function (name, blob) {
      var a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = name;
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 10000);
    },
    // platform_web.cpp pick_file(): the file picker (a click in the app is the user's gesture).
    bankvizPickFile: function () { picker.click(); },
    onRuntimeInitialized: function () {},
    monitorRunDependencies: function (left) {
      if (left === 0) { started = true; say(''); }
    },
    onAbort: function (what) { say('bankviz stopped: ' + what, true); }
  };

  // [3] Picked files go into the page's memory, then to the app (as if dropped on the canvas).
  picker.addEventListener('change', function () {
    Array.prototype.forEach.call(picker.files, function (file) {
      file.arrayBuffer().then(function (data) {
        var path = '/uploads/' + file.name.replace(/\//g, '_');
        window.Module.FS.writeFile(path, new Uint8Array(data));
        window.Module.ccall('bankviz_web_open_file', null, ['string'], [path]);
      });
    });
    picker.value = '';
  });

  // [4] The canvas fills the page, unless the link fixed its size.
  if (!fixedSize) {
    window.addEventListener('resize', function () {
      var v = viewport();
      if (window.Module.setCanvasSize) window.Module.setCanvasSize(v[0], v[1]);
    });
  }
  // A link typed into the address bar (not one the app wrote there) opens what it names.
  window.addEventListener('hashchange', function () { location.reload(); });
  canvas.focus();

  var script = document.createElement('script');
  script.src = 'bankviz.js';
  script.onerror = function () { say('Cannot load bankviz.js from this site.', true); };
  document.body.appendChild(script);
})();
