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
  // The link `bankviz-cli serve --http` prints carries its token (#token=...): kept for this tab
  // (sessionStorage, for the server's /api calls) and taken out of the link the app reads and the
  // address bar shows.
  var token = /(^#|&)token=([0-9A-Za-z]{16,128})(?=&|$)/.exec(hash);
  if (token) {
    sessionStorage.setItem('bankviz-token', token[2]);
    hash = hash.replace(token[0], token[1] === '#' ? '#' : '').replace('#&', '#');
    history.replaceState(null, '', location.pathname + location.search + hash);
  }
  var args = ['--link', hash];
  var fixedSize = /(^|[#&])size=/.test(hash);
  function viewport() {
    return [Math.max(640, window.innerWidth), Math.max(400, window.innerHeight)];
  }
  if (!fixedSize) args.push('--size', viewport().join('x'));

  // The recorded measurements (assets/recorded: figures measured on a GPU, app/shared/recorded.h)
  // are on the site gzipped, listed in recorded/index.json (cmake/gzip_recorded.cmake); the
  // browser unpacks them (DecompressionStream) into /bankviz/assets/recorded, where the app's
  // figures come from when no GPU measures. Fetched and unpacked from the page's start, beside
  // bankviz.js, the module and the data package (it was after them, in preRun: index.json, then
  // the set, on the first frame's path); only written into the page's files in preRun.
  function fetchRecorded() {
    if (typeof DecompressionStream === 'undefined')
      return Promise.reject(new Error('this browser cannot unpack gzip (DecompressionStream)'));
    return fetch('recorded/index.json').then(function (r) {
      if (!r.ok) throw new Error('recorded/index.json: HTTP ' + r.status);
      return r.json();
    }).then(function (names) {
      return Promise.all(names.filter(function (n) {
        return /^[A-Za-z0-9._-]+\.json$/.test(n);  // a name, never a path
      }).map(function (name) {
        return fetch('recorded/' + name + '.gz').then(function (r) {
          if (!r.ok) throw new Error(name + '.gz: HTTP ' + r.status);
          return r.arrayBuffer();
        }).then(function (bytes) {
          // A server that sends .gz files as Content-Encoding: gzip has them unpacked already.
          var b = new Uint8Array(bytes);
          if (b.length < 2 || b[0] !== 0x1f || b[1] !== 0x8b) return bytes;
          var plain = new Blob([b]).stream().pipeThrough(new DecompressionStream('gzip'));
          return new Response(plain).arrayBuffer();
        }).then(function (bytes) {
          return {name: name, bytes: new Uint8Array(bytes)};
        });
      }));
    });
  }
  var recorded = fetchRecorded();
  recorded.catch(function () {});  // said in preRun
  function writeRecorded(M) {
    var dir = '/bankviz/assets/recorded';
    return recorded.then(function (sets) {
      M.FS.mkdirTree(dir);
      sets.forEach(function (s) { M.FS.writeFile(dir + '/' + s.name, s.bytes); });
    });
  }

  function askServer(M, token) {
    return fetch('api/hello', {headers: {Authorization: 'token ' + token}}).then(function (r) {
      return r.json().catch(function () { return {error: 'HTTP ' + r.status}; });
    }).then(function (hello) {
      var host = hello.host || location.host;
      if (hello.error) {
        M.ENV.BANKVIZ_SERVED_NOTE = 'the server at ' + location.host + ' refused this page: ' +
            hello.error;
      } else if (!hello.device || !hello.device.present) {
        M.ENV.BANKVIZ_SERVED_NOTE = 'bankviz-cli serve on ' + host + ' has no usable GPU (' +
            ((hello.device && hello.device.reason) || 'it found none') + ')';
      } else {
        M.ENV.BANKVIZ_SERVED_GPU = hello.device.name;
        M.ENV.BANKVIZ_SERVED_SM = hello.device.sm || '';
        M.ENV.BANKVIZ_SERVED_HOST = host;
        M.ENV.BANKVIZ_SERVED_TOKEN = token;
      }
    }, function (e) {
      M.ENV.BANKVIZ_SERVED_NOTE = 'no answer from the server at ' + location.host + ': ' + e;
    });
  }

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
      // The recorded measurements, unpacked where the app reads them before it starts.
      M.addRunDependency('bankviz-recorded');
      writeRecorded(M).catch(function (e) {
        // The app then says that none could be loaded, beside the model's figures.
        console.warn('bankviz: the recorded measurements could not be loaded: ' + e);
      }).then(function () { M.removeRunDependency('bankviz-recorded'); });
      // Opened from `bankviz-cli serve --http` with its token: ask the server for its GPU, and
      // tell the app (app/gui/measure/browser_gpu.cpp) where it measures, or why it cannot.
      var served = sessionStorage.getItem('bankviz-token');
      if (served) {
        M.addRunDependency('bankviz-served');
        askServer(M, served).then(function () { M.removeRunDependency('bankviz-served'); });
      }
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
