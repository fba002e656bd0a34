#!/usr/bin/env bash
# The browser tests (scripts/web.sh --test; CI): Debian's chromium, headless with SwiftShader's
# WebGL2, driven by npm's puppeteer-core against the site served on 127.0.0.1.
# usage: tests/web/run.sh SITE_DIR   (BANKVIZ_DESKTOP=path/to/bankviz: the desktop app whose
#        layout the page's must equal; build/app/gui/bankviz by default, skipped when absent;
#        BANKVIZ_CLI: the bankviz-cli whose `serve --http` serves the site to one test)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
site=$(cd "${1:?usage: tests/web/run.sh SITE_DIR}" && pwd)
root=$(cd "$here/../.." && pwd)
# puppeteer-core as locked in package-lock.json (it downloads no browser).
if [[ ! -d $here/node_modules/puppeteer-core ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
log=$(mktemp)
python3 "$root/scripts/serve_site.py" "$site" 0 >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 50); do
  grep -q "serving" "$log" && break
  sleep 0.1
done
url=$(grep -o 'http://[^ ]*' "$log" | head -1)
[[ -n $url ]] || { echo "web tests: the server did not start:"; cat "$log"; exit 1; }
export BANKVIZ_DESKTOP=${BANKVIZ_DESKTOP:-$root/build/app/gui/bankviz}
# bankviz-cli, for the page served by `serve --http` (skipped when absent).
export BANKVIZ_CLI=${BANKVIZ_CLI:-$root/build/app/bankviz-cli}
export BANKVIZ_SITE=$site
export BANKVIZ_DATA_DIR=${BANKVIZ_DATA_DIR:-$root}
node "$here/browser.test.mjs" "$url"
