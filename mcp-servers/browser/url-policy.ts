import { AppError } from '../../src/errors/index.js';

const WEB_SCHEMES = new Set(['http:', 'https:']);

/** Whether the browser may load this URL: http(s) only (the page's own requests and navigations). */
export function isWebUrl(url: string): boolean {
  try {
    return WEB_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/**
 * The URL a call asks for, checked: an absolute http or https URL, or
 * about:blank. file:, data:, javascript:, chrome:, ftp: and the rest are
 * refused, and so are credentials in the URL: this browser does not log in.
 */
export function checkRequestedUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('BROWSER_URL_REFUSED', 'the url must be an absolute http or https URL (with the scheme, e.g. https://example.org/)');
  }
  if (url.href === 'about:blank') return url;
  if (!WEB_SCHEMES.has(url.protocol)) {
    throw new AppError('BROWSER_URL_REFUSED', `${url.protocol} URLs are refused: only http and https pages can be read`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppError('BROWSER_URL_REFUSED', 'URLs with a user name or password are refused: this browser does not log in');
  }
  return url;
}
