import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ErrorObject } from 'ajv';
import { AppError } from '../../src/errors/index.js';
import { META_RISK } from '../../src/tool-meta/index.js';
import type { BrowserSettings } from './settings.js';

export const READ_PAGE = 'browser.read_page';
export const EXTRACT = 'browser.extract';

export const EXTRACT_DEFAULT_LIMIT = 20;
const EXTRACT_MAX_LIMIT = 100;

export interface ReadPageArgs {
  url: string;
}

export interface ExtractArgs {
  url: string;
  selector: string;
  attribute?: string;
  limit?: number;
}

const URL_PROPERTY = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'An absolute http:// or https:// URL. Other schemes (file:, data:, javascript:, ...) are refused.',
};

const READ_ONLY_NOTE =
  'Read only: it opens the page in a fresh private browser (no cookies kept) and never logs in, clicks, fills or submits forms, buys, uploads, downloads or sends messages.';

/** The JSON Schemas are both what tools/list declares and what each call is checked against. */
const READ_PAGE_SCHEMA = {
  type: 'object',
  properties: { url: URL_PROPERTY },
  required: ['url'],
  additionalProperties: false,
} as const;

const EXTRACT_SCHEMA = {
  type: 'object',
  properties: {
    url: URL_PROPERTY,
    selector: { type: 'string', minLength: 1, maxLength: 500, description: 'A CSS selector, e.g. "h2", "table.prices td", "a.result".' },
    attribute: {
      type: 'string',
      pattern: '^[A-Za-z_:][-A-Za-z0-9_:.]*$',
      maxLength: 100,
      description: 'Return this attribute of each element instead of its text (href and src as absolute URLs).',
    },
    limit: { type: 'integer', minimum: 1, maximum: EXTRACT_MAX_LIMIT, description: `At most this many elements (default ${EXTRACT_DEFAULT_LIMIT}).` },
  },
  required: ['url', 'selector'],
  additionalProperties: false,
} as const;

export function browserTools(settings: BrowserSettings): Tool[] {
  const meta = {
    [META_RISK]: 'read',
    'desktop-assistant/timeoutMs': settings.callTimeoutMs,
  };
  const annotations = { readOnlyHint: true, openWorldHint: true };
  return [
    {
      name: READ_PAGE,
      title: 'Read a web page',
      description: `Reads a web page after its scripts have run: its title, final URL, main text and links (absolute URLs). ${READ_ONLY_NOTE}`,
      inputSchema: READ_PAGE_SCHEMA as unknown as Tool['inputSchema'],
      annotations,
      _meta: meta,
    },
    {
      name: EXTRACT,
      title: 'Extract from a web page',
      description: `Opens a web page and returns the text (or one attribute) of the elements matching a CSS selector. ${READ_ONLY_NOTE}`,
      inputSchema: EXTRACT_SCHEMA as unknown as Tool['inputSchema'],
      annotations,
      _meta: meta,
    },
  ];
}

const ajv = new Ajv({ allErrors: false, strict: true });
const validateReadPage = ajv.compile<ReadPageArgs>(READ_PAGE_SCHEMA);
const validateExtract = ajv.compile<ExtractArgs>(EXTRACT_SCHEMA);

export function readPageArgs(value: unknown): ReadPageArgs {
  if (validateReadPage(value)) return value;
  throw badArguments(validateReadPage.errors);
}

export function extractArgs(value: unknown): ExtractArgs {
  if (validateExtract(value)) return value;
  throw badArguments(validateExtract.errors);
}

function badArguments(errors: ErrorObject[] | null | undefined): AppError {
  const error = errors?.[0];
  if (!error) return new AppError('BROWSER_BAD_ARGUMENTS', 'the arguments do not match the tool schema');
  const where = error.instancePath === '' ? 'arguments' : error.instancePath.slice(1);
  const extra = error.keyword === 'additionalProperties' ? `: ${String((error.params as { additionalProperty?: unknown }).additionalProperty)}` : '';
  return new AppError('BROWSER_BAD_ARGUMENTS', `${where} ${error.message ?? 'is invalid'}${extra}`);
}
