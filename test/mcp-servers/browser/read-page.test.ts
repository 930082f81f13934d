import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../../helpers/browser.js';
import type { HttpStub } from '../../helpers/http-stub.js';
import { startBrowserServer, type BrowserServerHandle } from './harness.js';
import { html, startSite } from './pages.js';

const MAX_OUTPUT_CHARS = 3000;

const ARTICLE = `<!doctype html>
<html><head><title>  Tide   tables </title><style>.x { color: red }</style></head>
<body>
  <nav><a href="/">Home</a> <a href="about">About us</a></nav>
  <main>
    <h1>High   tide</h1>
    <p>The next high tide is at
       <b>06:12</b>.</p>
    <p style="display:none">hidden text</p>
    <script>var notText = 'script source';</script>
    <a href="../archive/2026.html">Archive</a>
    <a href="https://tides.example.org/stations?id=7">Station 7</a>
    <a href="/">Home again</a>
    <a href="mailto:someone@example.org">Mail</a>
    <a href="javascript:void(0)">Nothing</a>
  </main>
</body></html>`;

const RENDERED_LATER = `<!doctype html><title>Loading</title>
<main id="app">Loading...</main>
<script>
  setTimeout(() => {
    document.title = 'Forecast';
    document.getElementById('app').innerHTML = '<h2>Forecast</h2><p>Sunny, 21 degrees</p><a href="/details">Details</a>';
  }, 150);
</script>`;

const FETCHED_LATER = `<!doctype html><title>Prices</title><main id="list"></main>
<script>
  fetch('/api/prices').then((r) => r.json()).then((prices) => {
    document.getElementById('list').innerHTML = prices.map((p) => '<p class="price">' + p + '</p>').join('');
  });
</script>`;

const LIST = `<!doctype html><title>List</title><base href="/docs/">
<ul>
  <li class="item"><a href="one.html" data-id="1">First   item</a></li>
  <li class="item"><a href="two.html" data-id="2">Second item</a></li>
  <li class="item"><a href="https://example.org/three" data-id="3">Third item</a></li>
  <li class="other">Not an item</li>
</ul>
<script>
  setTimeout(() => {
    const late = document.createElement('p');
    late.className = 'late';
    late.textContent = 'arrived late';
    document.body.append(late);
  }, 1200);
</script>`;

let site: HttpStub;
let browser: BrowserServerHandle;

beforeAll(async () => {
  site = await startSite({
    '/article/today.html': html(ARTICLE),
    '/rendered': html(RENDERED_LATER),
    '/fetched': html(FETCHED_LATER),
    '/api/prices': (_request, response) => {
      // Slower than the DOM's quiet window: only waiting for the request catches it.
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(['4.20 EUR', '5.10 EUR']));
      }, 600);
    },
    '/list': html(LIST),
    '/big': html(`<title>Big</title><main>${'<p>All work and no play makes a long page. </p>'.repeat(400)}</main>`),
    '/cookie': (request, response) => {
      response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=abc; Path=/' });
      response.end(`<title>Cookie</title><main>cookie header: ${String(request.headers.cookie ?? 'none')}</main>`);
    },
    '/moves-on': html('<title>Moving</title><main>Moving on</main><script>setTimeout(() => { location.href = "/article/today.html"; }, 100);</script>'),
    '/missing': html('<title>Not here</title><main>No such page</main>', 404),
  });
  browser = await startBrowserServer({ max_output_chars: MAX_OUTPUT_CHARS, timeout: 15 });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('the browser server lists its tools', () => {
  it('offers two read-only tools with closed schemas and the read risk', async () => {
    const { tools } = await browser.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['browser.read_page', 'browser.extract']);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
      expect(tool._meta).toMatchObject({ 'desktop-assistant/risk': 'read', 'desktop-assistant/timeoutMs': 15_000 });
      expect(tool.description).toMatch(/never logs in, clicks, fills or submits forms, buys, uploads, downloads or sends messages/);
    }
    expect(tools[0]?.inputSchema).toMatchObject({ required: ['url'], properties: { url: { type: 'string' } } });
    expect(tools[1]?.inputSchema).toMatchObject({
      required: ['url', 'selector'],
      properties: { selector: { type: 'string' }, attribute: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
    });
  });
});

describe.skipIf(!chromiumAvailable())('browser.read_page', () => {
  it('reads the title, the main text with whitespace collapsed, and absolute links', async () => {
    const url = `${site.url}/article/today.html`;
    const answer = await browser.call('browser.read_page', { url });
    expect(answer.isError).toBe(false);
    expect(answer.text).toBe(
      [
        'Title: Tide tables',
        `URL: ${url}`,
        'Status: 200',
        '',
        'Text:',
        'High tide',
        'The next high tide is at 06:12.',
        'Archive Station 7 Home again Mail Nothing',
        '',
        'Links (4):',
        `- Home <${site.url}/>`,
        `- About us <${site.url}/article/about>`,
        `- Archive <${site.url}/archive/2026.html>`,
        '- Station 7 <https://tides.example.org/stations?id=7>',
        // The second link to / is the same address: listed once, under its first text.
      ].join('\n'),
    );
  });

  it('reads what a script renders after the page has loaded', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/rendered` });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('Title: Forecast');
    expect(answer.text).toContain('Forecast\nSunny, 21 degrees');
    expect(answer.text).not.toContain('Loading');
    expect(answer.text).toContain(`- Details <${site.url}/details>`);
  });

  it('waits for what a script fetches before it renders', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/fetched` });
    expect(answer.text).toContain('Text:\n4.20 EUR\n5.10 EUR');
  });

  it('follows a script that moves on to another page after the load', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/moves-on` });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('Title: Tide tables');
    expect(answer.text).toContain(`URL: ${site.url}/article/today.html`);
  });

  it('reports the status of an error page and still reads it', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/missing` });
    expect(answer.isError).toBe(false);
    expect(answer.text).toContain('Status: 404');
    expect(answer.text).toContain('No such page');
  });

  it('cuts a long output at max_output_chars with a visible mark', async () => {
    const answer = await browser.call('browser.read_page', { url: `${site.url}/big` });
    expect(answer.isError).toBe(false);
    expect(answer.text.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
    expect(answer.text.length).toBeGreaterThan(MAX_OUTPUT_CHARS - 100);
    expect(answer.text.startsWith('Title: Big\n')).toBe(true);
    expect(answer.text.endsWith(`\n[truncated: the output is longer than ${MAX_OUTPUT_CHARS} characters]`)).toBe(true);
  });

  it('keeps no cookies from one call to the next', async () => {
    const first = await browser.call('browser.read_page', { url: `${site.url}/cookie` });
    const second = await browser.call('browser.read_page', { url: `${site.url}/cookie` });
    expect(first.text).toContain('cookie header: none');
    expect(second.text).toContain('cookie header: none');
  });
});

describe.skipIf(!chromiumAvailable())('browser.extract', () => {
  it('returns the text of each matching element, whitespace collapsed', async () => {
    const answer = await browser.call('browser.extract', { url: `${site.url}/list`, selector: 'li.item' });
    expect(answer.text).toBe(
      [`URL: ${site.url}/list`, 'Status: 200', 'Selector: li.item (text; 3 matches)', '', '1. First item', '2. Second item', '3. Third item'].join('\n'),
    );
  });

  it('returns an attribute instead, href as absolute URLs, and stops at the limit', async () => {
    const hrefs = await browser.call('browser.extract', { url: `${site.url}/list`, selector: 'li.item a', attribute: 'href', limit: 2 });
    expect(hrefs.text).toContain('Selector: li.item a (attribute href; 3 matches, first 2 shown)');
    expect(hrefs.text).toContain(`\n1. ${site.url}/docs/one.html\n2. ${site.url}/docs/two.html`);
    expect(hrefs.text).not.toContain('3. ');

    const ids = await browser.call('browser.extract', { url: `${site.url}/list`, selector: 'li.item a, li.other', attribute: 'data-id' });
    expect(ids.text).toContain('\n1. 1\n2. 2\n3. 3\n4. (no data-id)');
  });

  it('waits a little for an element that is not there yet', async () => {
    const answer = await browser.call('browser.extract', { url: `${site.url}/list`, selector: 'p.late' });
    expect(answer.text).toContain('1 matches');
    expect(answer.text).toContain('1. arrived late');
  });

  it('says so when nothing matches, and refuses a selector that is not CSS before fetching anything', async () => {
    const none = await browser.call('browser.extract', { url: `${site.url}/article/today.html`, selector: 'table td' });
    expect(none.isError).toBe(false);
    expect(none.text).toContain('(no element matches)');

    const before = site.requests.length;
    const bad = await browser.call('browser.extract', { url: `${site.url}/list`, selector: 'li[' });
    expect(bad).toMatchObject({ isError: true, code: 'BROWSER_BAD_SELECTOR' });
    expect(site.requests.length).toBe(before);
  });
});
