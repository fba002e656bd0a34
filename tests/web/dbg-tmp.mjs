import puppeteer from 'puppeteer-core';
const browser = await puppeteer.launch({executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader']});
const p = await browser.newPage();
p.on('console', (m) => console.log('console:', m.text().slice(0, 300)));
p.on('pageerror', (e) => console.log('pageerror:', String(e).slice(0, 300)));
await p.setViewport({width: 1280, height: 720});
await p.goto(process.argv[2] + '#lesson=data-layout&scene=1&size=1280x720', {waitUntil: 'load'});
await new Promise((r) => setTimeout(r, 15000));
console.log(await p.evaluate(() => JSON.stringify({frames: window.Module && window.Module.bankvizFrames,
  running: window.Module && window.Module.calledRun, workers: typeof PThread !== 'undefined' ? PThread.unusedWorkers.length + '/' + PThread.runningWorkers.length : 'n/a'})));
await browser.close();
