import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { routesOf } from '../../region/http/app.ts';
import { apiFixture } from '../../region/http/testing/api.ts';
import { assetsOf, consoleAssets } from './assets.ts';
import { bundleConsole } from './bundle.ts';
import { CONSOLE_PAGES, pageOf, RESERVED } from './pages.ts';
import { mountConsole } from './routes.ts';

const fixed = assetsOf({
  'index.html': Buffer.from('<!doctype html><title>console</title>'),
  'app.js': Buffer.from('export {};'),
  'app.css': Buffer.from('body{}'),
});

describe('the console on the API origin', () => {
  it('serves the page at / and its assets under /console/, without a token, under a CSP of its own origin', async () => {
    const fixture = await apiFixture();
    const app = fixture.api;
    mountConsole(app, { assets: () => Promise.resolve(fixed) });
    const page = await app.inject({ method: 'GET', url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.body, '<!doctype html><title>console</title>');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe/);
    const script = await app.inject({ method: 'GET', url: '/console/app.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    const style = await app.inject({ method: 'GET', url: '/console/app.css' });
    assert.match(String(style.headers['content-type']), /^text\/css/);
    // The API beside it still wants its token.
    assert.equal((await app.inject({ method: 'GET', url: '/api/v2/networks' })).statusCode, 401);
    await fixture.close();
  });

  it('answers every console path, and the paths below it, with the page: a deep link loads the console', async () => {
    const fixture = await apiFixture();
    const app = fixture.api;
    mountConsole(app, { assets: () => Promise.resolve(fixed) });
    for (const url of [
      '/servers',
      '/servers/',
      '/servers/00000000-0000-4000-8000-000000000001',
      '/topology',
      '/operator',
    ]) {
      const page = await app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.equal(page.body, '<!doctype html><title>console</title>', url);
      assert.match(String(page.headers['content-security-policy']), /script-src 'self'/, url);
    }
    assert.deepEqual(pageOf('/servers/abc'), { page: '/servers', rest: 'abc' });
    assert.equal(pageOf('/serversx'), undefined);
    await fixture.close();
  });

  it("shadows no API path: the API's own paths, and paths no one serves, keep their 404 problem documents", async () => {
    const fixture = await apiFixture();
    const app = fixture.api;
    mountConsole(app, { assets: () => Promise.resolve(fixed) });
    const api = routesOf(app).filter((r) => !CONSOLE_PAGES.some((p) => r.url === p.path || r.url === `${p.path}/*`));
    for (const route of api) {
      const page = pageOf(route.url);
      assert.equal(page, undefined, `${route.method} ${route.url} is not a console path`);
    }
    for (const reserved of RESERVED) assert.equal(pageOf(reserved), undefined, reserved);
    for (const url of ['/api/v2/servers/x/y', '/api/v2/nothing', '/console/nothing.js', '/nothing', '/serversx']) {
      const answer = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${fixture.tokens.a}` } });
      assert.equal(answer.statusCode, 404, url);
      assert.match(String(answer.headers['content-type']), /^application\/problem\+json/, url);
    }
    await fixture.close();
  });

  it('reads a built package from dist/console/, once, and says to build when it is not there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-assets-'));
    after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const missing = consoleAssets(`${dir}/`, false);
    await assert.rejects(missing(), /npm run build/);
    for (const [name, asset] of fixed) writeFileSync(join(dir, name), asset.body);
    const built = consoleAssets(`${dir}/`, false);
    const first = await built();
    assert.equal(first.get('app.js')?.body.toString(), 'export {};');
    writeFileSync(join(dir, 'app.js'), 'changed');
    assert.equal(await built(), first, 'read once');
    // A failure is not remembered: the same loader finds the files once they are there.
    assert.equal((await missing()).get('app.css')?.body.toString(), 'body{}');
  });

  it('bundles console/ for the browser: one ES module with no Node imports, no eval', async () => {
    const assets = await bundleConsole();
    const script = assets.get('app.js')?.body.toString() ?? '';
    assert.ok(script.length > 10_000, 'a real bundle');
    assert.doesNotMatch(script, /from\s*"node:|require\(/);
    assert.doesNotMatch(script, /\bnew Function\(|\beval\(/);
    assert.match(assets.get('index.html')?.body.toString() ?? '', /<script type="module" src="\/console\/app\.js">/);
  });
});
