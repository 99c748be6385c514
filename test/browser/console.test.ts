/**
 * The web console as a person uses it, in Debian's Chromium against `openregion up` (a child process, as a newcomer
 * runs it): sign in with the link `up` prints, read the region's inventory, be told beside the prefix field what the
 * API says of an invalid CIDR, create a network and a server and watch it reach running, change its image and see it
 * rebuild and run again, open the server's own page from a deep link (Events, conditions, console output, the SSH
 * key), take and delete a snapshot there, create a load balancer, see the project's topology, see a second client's
 * changes arrive live over the watch stream with no list polled, order a KeystoneUser from the operator view and see
 * it Ready, then delete everything and see the built-in cloud hold none of it.
 * Every view is reached by its own address (a deep link, after the first sign-in link). On every page axe-core finds
 * no violation of serious or critical impact; each page's screenshot is written to test-results/console/ (ignored by
 * git) for a reviewer to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { cloudState, REPO, restClient, startChildUp, type ChildUp } from '../up/child.ts';
import { launch, missingBrowser, seriousViolations } from './browser.ts';

/** Bounds on waiting, not assertions about speed: convergence rides the controllers' rechecks. */
const CONVERGE_MS = 180_000;
const SHOTS = join(REPO, 'test-results', 'console');

const missing = missingBrowser();
if (missing !== undefined) {
  if (process.env['CI'] === 'true') throw new Error(`the console suite needs Chromium under CI: ${missing}`);
  process.stderr.write(`\n*** SKIPPING the console browser suite: ${missing} ***\n\n`);
}

describe('the web console in Chromium, against up', { skip: missing }, () => {
  const root = join(REPO, '.cache', `console-${String(process.pid)}`);
  const dir = join(root, '.openregion');
  let up: ChildUp;
  let browser: Browser;
  let page: Page;
  const rest = restClient(dir, () => up.api);
  /** Every page looked at, with what axe found there. */
  const looked = new Map<string, string[]>();

  before(async () => {
    mkdirSync(root, { recursive: true });
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    [up, browser] = await Promise.all([startChildUp(dir), launch()]);
    // axe-core is injected as a script; the console's CSP rightly refuses inline ones.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (error) => {
      process.stderr.write(`console page error: ${error.message}\n`);
    });
  });
  after(async () => {
    await browser.close();
    await up.stop('SIGINT');
    rmSync(root, { recursive: true, force: true });
    process.stdout.write(`console screenshots: ${SHOTS}\n`);
  });

  const until = async (what: string, probe: () => Promise<boolean>, ms = CONVERGE_MS): Promise<void> => {
    const deadline = Date.now() + ms;
    while (!(await probe())) {
      if (Date.now() > deadline) assert.fail(`${what}: not within ${String(ms)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  /** A deep link: the view's own address, loaded afresh (the token kept from the first sign-in link). */
  const visit = async (view: string) => {
    await page.goto(`${up.api}/${view}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  };
  /** A screenshot of the page as it is, and axe's serious and critical violations on it (none expected). */
  const look = async (name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    const violations = await seriousViolations(page);
    looked.set(
      name,
      violations.map(
        (v) => `${v.id} (${v.impact ?? ''}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`,
      ),
    );
    assert.deepEqual(looked.get(name), [], `axe on ${name}`);
  };
  const env = () => readFileSync(join(dir, 'dev.env'), 'utf8');
  const envValue = (key: string) => new RegExp(`${key}=(\\S+)`).exec(env())?.[1]?.replace(/^'|'$/g, '') ?? '';
  const tenancy = () =>
    Promise.resolve({
      organizationId: envValue('OPENREGION_ORGANIZATION_ID'),
      projectId: envValue('OPENREGION_PROJECT_ID'),
      regionId: envValue('OPENREGION_REGION_ID'),
    });
  const serverID = async (name: string) => {
    const { json } = await rest('GET', '/api/v2/servers');
    const found = (json as { metadata: { id: string; name: string } }[]).find((s) => s.metadata.name === name);
    return found?.metadata.id ?? assert.fail(`no server ${name}`);
  };
  /** Each matched element's attributes, joined by `>`. */
  const attributes = async (elements: Locator, ...names: string[]) =>
    Promise.all(
      (await elements.all()).map(async (e) =>
        (await Promise.all(names.map(async (n) => (await e.getAttribute(n)) ?? ''))).join('>'),
      ),
    );
  const row = (name: string) => page.locator(`tr[data-name="${name}"]`);
  const phaseOf = async (name: string) => (await row(name).locator('td.phase').innerText()).trim();
  const statusOf = async (name: string) => (await row(name).locator('td.status').innerText()).trim();
  const deleteRow = async (name: string) => {
    await row(name)
      .getByRole('button', { name: `Delete ${name}` })
      .click();
    await row(name)
      .getByRole('button', { name: `Really delete ${name}` })
      .click();
  };

  it('signs in with the link up prints, and the token leaves the address bar', async () => {
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    await page.goto(`${up.api}/#token=${token}`);
    await page.getByRole('button', { name: /Sign out developer/ }).waitFor();
    assert.ok(!page.url().includes(token), 'the token is not left in the URL');
    await page.getByRole('cell', { name: 'demo.small' }).waitFor();
    await page.getByRole('heading', { name: 'External networks' }).waitFor();
    // Units as the API defines them: a flavor's disk is GiB.
    await page.getByRole('columnheader', { name: 'Disk (GiB)' }).waitFor();
    // The project selector names the project; its id is secondary.
    const project = page.getByLabel('Project', { exact: true });
    assert.equal((await project.locator('option:checked').innerText()).trim(), 'development');
    await look('region');
  });

  it("shows the API's own message beside the prefix field for an invalid CIDR, and creates nothing", async () => {
    await visit('networks');
    await look('networks-empty');
    const env = readFileSync(join(dir, 'dev.env'), 'utf8');
    const value = (key: string) => new RegExp(`${key}=(\\S+)`).exec(env)?.[1]?.replace(/^'|'$/g, '') ?? '';
    const apiSays = async (prefix: string) => {
      const { status, json } = await rest('POST', '/api/v2/networks', {
        metadata: { name: 'bad' },
        spec: {
          organizationId: value('OPENREGION_ORGANIZATION_ID'),
          projectId: value('OPENREGION_PROJECT_ID'),
          regionId: value('OPENREGION_REGION_ID'),
          prefix,
          dnsNameservers: [],
        },
      });
      assert.ok(status === 400 || status === 422, `the API refuses ${prefix}`);
      const errors = (json as { errors: { pointer: string; message: string }[] }).errors;
      return errors.find((e) => e.pointer === '/spec/prefix')?.message ?? assert.fail(JSON.stringify(json));
    };
    // Not an address; host bits set (a rule beyond the pattern); and a /28, which only the server refuses (422).
    for (const prefix of ['10.0.0.300/24', '10.0.0.1/24', '10.0.0.0/28']) {
      await page.getByLabel('Name', { exact: true }).fill('bad-net');
      await page.getByLabel('Prefix (CIDR)').fill(prefix);
      await page.getByRole('button', { name: 'Create network' }).click();
      const beside = page.locator('#f-spec-prefix-error');
      const expected = await apiSays(prefix);
      await until(
        `the message for ${prefix}`,
        async () => (await beside.isVisible()) && (await beside.innerText()) === expected,
        10_000,
      );
      assert.equal(await page.getByLabel('Prefix (CIDR)').getAttribute('aria-invalid'), 'true');
      if (prefix === '10.0.0.300/24') await look('networks-invalid-cidr');
    }
    const { json } = await rest('GET', '/api/v2/networks');
    assert.deepEqual(json, [], 'no network was created');
  });

  it('creates a network and sees it provisioned', async () => {
    await page.getByLabel('Name', { exact: true }).fill('web-net');
    await page.getByLabel('Prefix (CIDR)').fill('192.168.50.0/24');
    await page.getByRole('button', { name: 'Create network' }).click();
    await row('web-net').waitFor();
    await until('web-net provisioned', async () => (await statusOf('web-net')) === 'provisioned');
    await look('networks');
  });

  it('creates a server and watches it reach running', async () => {
    await visit('servers');
    await page.getByLabel('Name', { exact: true }).fill('web-1');
    await page.getByLabel('Image', { exact: true }).selectOption({ label: 'debian-12' });
    await page.getByRole('button', { name: 'Create server' }).click();
    await row('web-1').waitFor();
    await until('web-1 running', async () => (await phaseOf('web-1')) === 'running');
    await look('servers');
  });

  it('changes its image and sees rebuilding, then running', async () => {
    await page.getByRole('button', { name: 'Manage web-1' }).click();
    const manage = page.getByRole('region', { name: 'Manage web-1' });
    await manage.getByLabel('Image', { exact: true }).selectOption({ label: 'ubuntu-24.04' });
    await manage.getByRole('button', { name: 'Change image' }).click();
    const seen: string[] = [];
    await until('web-1 rebuilt and running', async () => {
      const phase = await phaseOf('web-1');
      if (seen.at(-1) !== phase) seen.push(phase);
      return seen.includes('rebuilding') && phase === 'running';
    });
    assert.ok(seen.indexOf('rebuilding') < seen.lastIndexOf('running'), `phases seen: ${seen.join(' → ')}`);
    assert.equal(await row('web-1').locator('td').nth(2).innerText(), 'ubuntu-24.04');
    await look('servers-manage');
  });

  it("opens the server's own page from a deep link: summary, conditions, Events, console output, SSH key", async () => {
    const id = await serverID('web-1');
    await page.goto(`${up.api}/servers/${id}`);
    await page.getByRole('heading', { level: 1, name: /Server web-1/ }).waitFor();
    assert.ok(page.url().endsWith(`/servers/${id}`), 'the address stays the deep link');
    const summary = page.getByRole('region', { name: 'Summary' });
    await until(
      'the page shows running',
      async () => (await summary.locator('dd.phase').innerText()).trim() === 'running',
    );
    // The names come with the region's inventory, which the page loads beside the server: it may land after it.
    await until('the summary names the image', async () => /ubuntu-24\.04/.test(await summary.innerText()));
    assert.match(await summary.innerText(), /web-net/, 'the network by name');
    const events = page.getByRole('region', { name: 'Events' });
    await events.locator('tbody tr').first().waitFor();
    const reasons = await attributes(events.locator('tbody tr'), 'data-reason');
    assert.ok(reasons.includes('Provisioned'), `Events: ${reasons.join(', ')}`);
    await page.getByRole('region', { name: 'Conditions' }).getByText('provisioned').first().waitFor();
    await page.locator('pre.console-output').waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download the SSH key' }).click();
    const key = await download;
    assert.equal(key.suggestedFilename(), 'web-1.pem');
    const pem = readFileSync(await key.path(), 'utf8');
    assert.match(pem, /^-----BEGIN [A-Z ]*PRIVATE KEY-----/);
    await look('server-detail');
  });

  it("takes a snapshot from the server's page, sees it ready, and deletes it", async () => {
    const snapshots = page.getByRole('region', { name: 'Snapshots' });
    await snapshots.getByLabel('Snapshot name').fill('web-1-console-snap');
    await snapshots.getByRole('button', { name: 'Take a snapshot' }).click();
    await row('web-1-console-snap').waitFor();
    await until('the snapshot ready', async () => (await statusOf('web-1-console-snap')) === 'ready');
    await look('server-snapshot');
    await deleteRow('web-1-console-snap');
    await until('the snapshot gone', async () => (await row('web-1-console-snap').count()) === 0);
  });

  it('creates a load balancer and sees it provisioned', async () => {
    await visit('load-balancers');
    await page.getByLabel('Name', { exact: true }).fill('lb-1');
    await page.getByRole('button', { name: 'Create load balancer' }).click();
    await row('lb-1').waitFor();
    await until('lb-1 provisioned', async () => (await statusOf('lb-1')) === 'provisioned');
    await look('load-balancers');
  });

  it("draws the project's topology: the network, its server and load balancer, and links to the server's page", async () => {
    await visit('topology');
    const node = (name: string) => page.locator(`svg.topology g.node[data-name="${name}"]`);
    for (const name of ['web-net', 'web-1', 'lb-1']) await node(name).waitFor();
    const edges = await attributes(page.locator('svg.topology path.edge'), 'data-from', 'data-to');
    assert.ok(edges.includes('web-net>web-1'), `edges: ${edges.join(', ')}`);
    assert.ok(edges.includes('web-net>lb-1'), `edges: ${edges.join(', ')}`);
    await page.getByRole('region', { name: 'Relations' }).getByText('runs on').first().waitFor();
    await look('topology');
    await page.getByRole('link', { name: /^web-1 server/ }).click();
    await page.getByRole('heading', { level: 1, name: /Server web-1/ }).waitFor();
    assert.ok(page.url().endsWith(`/servers/${await serverID('web-1')}`));
  });

  it("shows a second client's changes live from the watch stream, polling no list", async () => {
    await visit('networks');
    await row('web-net').waitFor();
    const listReads: string[] = [];
    const onRequest = (request: { url: () => string; method: () => string }) => {
      const url = new URL(request.url());
      if (request.method() === 'GET' && /^\/api\/v2\/[a-z]+$/.test(url.pathname)) listReads.push(url.pathname);
    };
    page.on('request', onRequest);
    const { status, json } = await rest('POST', '/api/v2/networks', {
      metadata: { name: 'live-net' },
      spec: { ...(await tenancy()), prefix: '192.168.60.0/24', dnsNameservers: [] },
    });
    assert.equal(status, 201);
    await row('live-net').waitFor({ timeout: 10_000 });
    await until('live-net provisioned, live', async () => (await statusOf('live-net')) === 'provisioned');
    await look('networks-live');
    const id = (json as { metadata: { id: string } }).metadata.id;
    assert.equal((await rest('DELETE', `/api/v2/networks/${id}`)).status, 202);
    await until('live-net gone, live', async () => (await row('live-net').count()) === 0);
    page.off('request', onRequest);
    assert.deepEqual(listReads, [], 'no list was read: the changes came over the watch stream');
  });

  it("orders a KeystoneUser from the operator view and sees it Ready, with its Secret's name and none of its content", async () => {
    await visit('operator');
    await page.getByRole('region', { name: 'Controllers' }).locator('tbody tr').first().waitFor();
    // Trends from the runtime's metrics: queue depth, errors, OpenStack failures and call latency.
    const trends = page.getByRole('region', { name: 'Trends' });
    for (const name of [/^Queue depth/, /^Controller errors/, /^OpenStack failures/, /^OpenStack call latency/]) {
      await trends.getByRole('img', { name }).waitFor();
    }
    await page.getByLabel('Name', { exact: true }).fill('console-order');
    await page.getByRole('button', { name: 'Place order' }).click();
    const order = row('default/console-order');
    await order.waitFor();
    await until('the order Ready', async () => (await order.locator('td.status').innerText()).trim() === 'True');
    assert.equal((await order.locator('td').nth(5).innerText()).trim(), 'console-order-credentials');
    // What the console reads of an order: where, from which ControlPlane, conditions, rotation, the Secret's name.
    const { json } = await rest('GET', '/api/console/operator/keystoneusers');
    const fields = new Set((json as object[]).flatMap((o) => Object.keys(o)));
    const allowed = ['namespace', 'name', 'controlPlane', 'conditions', 'nextRotation', 'secretName', 'deleting'];
    assert.deepEqual(
      [...fields].filter((f) => !allowed.includes(f)),
      [],
    );
    await look('operator');
  });

  it('shows the other views without accessibility violations', async () => {
    for (const view of ['security-groups', 'volumes', 'ssh-certificate-authorities']) {
      await visit(view);
      await look(view);
    }
    // A network's own page, reached from its list: its conditions, Events and what runs on it.
    await visit('networks');
    await row('web-net').getByRole('link', { name: 'web-net' }).click();
    await page.getByRole('heading', { level: 1, name: /Network web-net/ }).waitFor();
    await page.getByRole('region', { name: 'Servers' }).getByRole('link', { name: 'web-1' }).waitFor();
    await page.getByRole('region', { name: 'Events' }).locator('tbody tr').first().waitFor();
    assert.match(page.url(), /\/networks\/[0-9a-f-]{36}$/);
    await look('network-detail');
  });

  it('deletes everything, and the built-in cloud holds none of it', async () => {
    await visit('operator');
    await deleteRow('default/console-order');
    await until('the order gone', async () => (await row('default/console-order').count()) === 0);
    await visit('load-balancers');
    await deleteRow('lb-1');
    await until('lb-1 gone', async () => (await row('lb-1').count()) === 0);
    await visit('servers');
    await deleteRow('web-1');
    await until('web-1 gone', async () => (await row('web-1').count()) === 0);
    await visit('networks');
    await deleteRow('web-net');
    await until('web-net gone', async () => (await row('web-net').count()) === 0);
    const state = await cloudState(dir);
    const nova = state['nova'] as { servers: unknown[] };
    const octavia = state['octavia'] as { loadbalancers: unknown[] };
    assert.deepEqual(nova.servers, []);
    assert.deepEqual(octavia.loadbalancers, []);
    assert.ok(looked.size >= 15, `pages looked at: ${[...looked.keys()].join(', ')}`);
  });
});
