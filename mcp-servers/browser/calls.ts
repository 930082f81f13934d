import { AppError } from '../../src/errors/index.js';
import type { FreshPages } from './fresh-pages.js';
import { formatExtraction, formatReading, limitOutput, type Landing } from './format.js';
import { extractFromDocument, isValidSelector, readDocument } from './page-content.js';
import { visitPage, type PageVisit } from './page-session.js';
import type { BrowserSettings } from './settings.js';
import { EXTRACT_DEFAULT_LIMIT, type ExtractArgs, type ReadPageArgs } from './tools.js';
import { checkRequestedUrl } from './url-policy.js';

/** Links listed by read_page at most; the output limit may cut the list shorter. */
const MAX_LINKS = 50;
/** How long extract waits for a first match that the settled page does not have yet. */
const SELECTOR_WAIT_MS = 2_000;

export interface CallContext {
  pages: FreshPages;
  settings: BrowserSettings;
  signal?: AbortSignal;
}

export async function readPage(args: ReadPageArgs, context: CallContext): Promise<string> {
  const url = checkRequestedUrl(args.url);
  const { settings } = context;
  const text = await visitPage(context.pages, settings, { url: url.href, signal: context.signal }, async (visit) => {
    const reading = await visit.page.evaluate(readDocument, { maxChars: settings.maxOutputChars + 1, maxLinks: MAX_LINKS });
    return formatReading(landingOf(visit), reading);
  });
  return limitOutput(text, settings.maxOutputChars);
}

export async function extract(args: ExtractArgs, context: CallContext): Promise<string> {
  const url = checkRequestedUrl(args.url);
  const { settings } = context;
  const query = {
    selector: args.selector,
    limit: args.limit ?? EXTRACT_DEFAULT_LIMIT,
    maxChars: settings.maxOutputChars,
    ...(args.attribute === undefined ? {} : { attribute: args.attribute }),
  };
  // Checked on the blank page before anything is fetched: a bad selector costs no request.
  const checkSelector = async (page: PageVisit['page']): Promise<void> => {
    if (!(await page.evaluate(isValidSelector, query.selector))) {
      throw new AppError('BROWSER_BAD_SELECTOR', `not a valid CSS selector: ${query.selector}`);
    }
  };
  const text = await visitPage(context.pages, settings, { url: url.href, signal: context.signal, beforeNavigation: checkSelector }, async (visit) => {
    let extraction = await visit.page.evaluate(extractFromDocument, query);
    if (extraction.matches === 0) {
      const waitMs = Math.min(visit.remainingMs(), SELECTOR_WAIT_MS);
      const appeared = await visit.page.waitForSelector(query.selector, { state: 'attached', timeout: Math.max(1, waitMs) }).then(
        () => true,
        () => false,
      );
      if (appeared) extraction = await visit.page.evaluate(extractFromDocument, query);
    }
    return formatExtraction(landingOf(visit), query, extraction);
  });
  return limitOutput(text, settings.maxOutputChars);
}

function landingOf(visit: PageVisit): Landing {
  return { url: visit.page.url(), status: visit.response?.status() ?? null };
}
