/**
 * Functions that run inside the page (`page.evaluate`). Playwright sends
 * each one as source text, so it may use nothing from outside its own body.
 */

export interface PageLink {
  text: string;
  href: string;
}

export interface PageReading {
  title: string;
  /** The readable text of `main`, `[role=main]` or `article` when one has text, else of `body`. */
  text: string;
  links: PageLink[];
  /** Distinct http(s) links on the page, before the cap. */
  linkCount: number;
}

/**
 * Resolves once the DOM has not changed for `quietMs`, or after `maxMs` at
 * the latest; at once on a page without scripts, whose DOM, after `load`
 * (awaited before this), stays as it is.
 */
export function domQuiet(limits: { quietMs: number; maxMs: number }): Promise<void> {
  return new Promise((resolve) => {
    if (document.scripts.length === 0) return resolve();
    let quiet: ReturnType<typeof setTimeout> | undefined;
    let cap: ReturnType<typeof setTimeout> | undefined;
    const observer = new MutationObserver(() => {
      clearTimeout(quiet);
      quiet = setTimeout(done, limits.quietMs);
    });
    function done(): void {
      observer.disconnect();
      clearTimeout(quiet);
      clearTimeout(cap);
      resolve();
    }
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    quiet = setTimeout(done, limits.quietMs);
    cap = setTimeout(done, Math.max(0, limits.maxMs));
  });
}

/** Title, main text (whitespace collapsed, at most `maxChars`) and the first `maxLinks` distinct http(s) links. */
export function readDocument(limits: { maxChars: number; maxLinks: number }): PageReading {
  const collapse = (text: string): string =>
    text
      .split('\n')
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter((line) => line !== '')
      .join('\n');
  const visibleText = (element: Element): string => (element instanceof HTMLElement ? element.innerText : (element.textContent ?? ''));

  let text = '';
  for (const candidate of [document.querySelector('main, [role="main"]'), document.querySelector('article')]) {
    if (candidate) text = collapse(visibleText(candidate));
    if (text !== '') break;
  }
  if (text === '' && document.body) text = collapse(visibleText(document.body));

  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const anchor of Array.from(document.querySelectorAll('a[href]'))) {
    if (!(anchor instanceof HTMLAnchorElement)) continue;
    const href = anchor.href;
    if (!/^https?:/i.test(href) || seen.has(href)) continue;
    seen.add(href);
    if (links.length >= limits.maxLinks) continue;
    const label = collapse(anchor.innerText).replace(/\n/g, ' ') || anchor.getAttribute('aria-label') || anchor.title || anchor.querySelector('img')?.alt || '';
    links.push({ text: label.slice(0, 200), href });
  }
  return { title: collapse(document.title).replace(/\n/g, ' '), text: text.slice(0, limits.maxChars), links, linkCount: seen.size };
}

/** Whether `selector` is valid CSS for `querySelectorAll`. */
export function isValidSelector(selector: string): boolean {
  try {
    document.createDocumentFragment().querySelector(selector);
    return true;
  } catch {
    return false;
  }
}

export interface Extraction {
  /** All matching elements, before `limit`. */
  matches: number;
  /** Text (or attribute; null where the element lacks it) of the first `limit` matches. */
  values: (string | null)[];
}

/**
 * The text, one line each, or an attribute of the elements matching
 * `selector`; `href` and `src` come back as absolute URLs.
 */
export function extractFromDocument(query: { selector: string; attribute?: string; limit: number; maxChars: number }): Extraction {
  const elements = Array.from(document.querySelectorAll(query.selector));
  const values = elements.slice(0, query.limit).map((element) => {
    if (query.attribute === undefined) {
      const text = element instanceof HTMLElement ? element.innerText : (element.textContent ?? '');
      return text.replace(/\s+/g, ' ').trim().slice(0, query.maxChars);
    }
    const value = element.getAttribute(query.attribute);
    if (value === null) return null;
    if (query.attribute === 'href' || query.attribute === 'src') {
      try {
        return new URL(value, document.baseURI).href.slice(0, query.maxChars);
      } catch {
        // Not a URL after all: the raw value is still the answer.
      }
    }
    return value.slice(0, query.maxChars);
  });
  return { matches: elements.length, values };
}
