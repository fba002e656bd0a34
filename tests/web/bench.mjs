// The browser build's budgets (BENCHMARKS.md, "The browser"), measured in Debian's chromium with
// SwiftShader: the site's size (and gzipped), the first frame after loading from a local server,
// frames per second at 1920x1080 in presenter mode while the animation plays, and every preset's
// analysis in the page against the same code run natively (build/bench/bench_presets).
//
// usage: node tests/web/bench.mjs http://127.0.0.1:PORT/ SITE_DIR [NATIVE_JSON]
//        (BANKVIZ_BENCH_REPEATS: each preset's analyses, the median taken; 5 unless given, as
//        `bench_presets assets/presets N` natively)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import puppeteer from 'puppeteer-core';

const [base, site, nativeFile] = process.argv.slice(2);
const repeats = Number(process.env.BANKVIZ_BENCH_REPEATS || 5);
if (!base || !site) {
  console.error('usage: node bench.mjs URL SITE_DIR [NATIVE_JSON]');
  process.exit(2);
}
const browser = await puppeteer.launch({
  executablePath: process.env.BANKVIZ_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run', '--window-size=1920,1080'],
});
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

// [1] Size
let bytes = 0, gz = 0;
for (const f of fs.readdirSync(site, {recursive: true})) {
  if (!fs.statSync(path.join(site, f)).isFile()) continue;
  const data = fs.readFileSync(path.join(site, f));
  bytes += data.length;
  // recorded/*.json.gz are served as they are: gzipped already.
  gz += f.endsWith('.gz') ? data.length : zlib.gzipSync(data, {level: 9}).length;
}
console.log(`site: ${(bytes / 1e6).toFixed(2)} MB, gzipped ${(gz / 1e6).toFixed(2)} MB`);

async function page(fragment, w, h) {
  const context = await browser.createBrowserContext();
  const p = await context.newPage();
  await p.setViewport({width: w, height: h});
  await p.goto(base + fragment, {waitUntil: 'load'});
  await p.waitForFunction(() => window.Module && window.Module.bankvizFrames > 0,
                          {timeout: 60000, polling: 20});
  p.done = () => context.close();
  return p;
}

// [2] First frame: performance.now() at the first frame shown, from the navigation's start, and
// when bankviz.wasm had arrived (its compile is streamed as it arrives).
const firsts = [];
const stages = {};
for (let i = 0; i < 5; ++i) {
  const p = await page('#lesson=data-layout&scene=1&size=1280x720', 1280, 720);
  const r = await p.evaluate(() => {
    const wasm = performance.getEntriesByType('resource').find((e) => /bankviz\.wasm$/.test(e.name));
    return {first: window.Module.bankvizFirstFrameMs, marks: {wasm: wasm ? wasm.responseEnd : NaN}};
  });
  firsts.push(r.first);
  for (const [k, v] of Object.entries(r.marks)) (stages[k] = stages[k] || []).push(v);
  await p.done();
}
console.log(`first frame: median ${median(firsts).toFixed(0)} ms (runs: ${
  firsts.map((x) => x.toFixed(0)).join(', ')}); bankviz.wasm arrived (median, ms): ${
  Object.entries(stages).map(([k, v]) => `${k} ${median(v).toFixed(0)}`).join(', ')}`);

// [3] Frames per second, presenter mode at 1920x1080, the animation playing (space).
{
  const p = await page('#preset=row-write-column-read&presenter&size=1920x1080', 1920, 1080);
  await new Promise((r) => setTimeout(r, 1500));
  await p.focus('#canvas');
  await p.keyboard.press('Space');
  await new Promise((r) => setTimeout(r, 1000));
  const a = await p.evaluate(() => [window.Module.bankvizFrames, performance.now()]);
  await new Promise((r) => setTimeout(r, 5000));
  const b = await p.evaluate(() => [window.Module.bankvizFrames, performance.now()]);
  console.log(`presenter 1920x1080, playing: ${((b[0] - a[0]) * 1000 / (b[1] - a[1])).toFixed(1)} fps`);
  await p.done();
}

// [4] Every preset's analysis in the page, against the native figures.
{
  const p = await page('#size=1280x720', 1280, 720);
  // The page settled first: its pool of workers loads after the first frame (site.cmake).
  await new Promise((r) => setTimeout(r, 3000));
  const json = await p.evaluate((n) => {
    const ptr = window.Module.ccall('bankviz_bench_presets', 'number', ['number'], [n]);
    return window.Module.UTF8ToString(ptr);
  }, repeats);
  const web = JSON.parse(json);
  await p.done();
  const native = nativeFile ? JSON.parse(fs.readFileSync(nativeFile, 'utf8')) : {};
  let worst = 0, worstName = '', n = 0;
  const over = [];
  for (const [name, ms] of Object.entries(web)) {
    if (!(name in native)) continue;
    ++n;
    // Below 0.05 ms natively a ratio is timer noise: compare against 0.05 ms.
    const ratio = ms / Math.max(native[name], 0.05);
    if (ratio > worst) { worst = ratio; worstName = name; }
    if (ratio > 3) over.push(`${name} ${ratio.toFixed(1)}x (${ms.toFixed(2)} vs ${native[name].toFixed(2)} ms)`);
  }
  if (n) console.log(`presets over 3x: ${over.length} of ${n}${over.length ? ': ' + over.join(', ') : ''}`);
  const total = Object.values(web).reduce((a, b) => a + b, 0);
  const totalNative = Object.keys(web).filter((k) => k in native).reduce((a, k) => a + native[k], 0);
  console.log(`presets: ${Object.keys(web).length} analyzed in the page, ${total.toFixed(1)} ms in all` +
              (n ? `; natively ${totalNative.toFixed(1)} ms; the largest ratio ${worst.toFixed(2)}x (${worstName})` : ''));
}
await browser.close();
