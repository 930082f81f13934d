import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../../src/errors/index.js';
import { MAX_MEMORY_CHARS, MEMORY_KINDS, isMemoryKind, type MemoryKind } from '../../src/memory/index.js';
import { META_ALLOW_UNLESS_SENSITIVE, META_RISK, META_SENSITIVE_ARGUMENT } from '../../src/tool-meta/index.js';

export const SEARCH = 'memory.search';
export const SAVE = 'memory.save';
export const FORGET = 'memory.forget';
export const LIST = 'memory.list';

const MAX_K = 20;
const DEFAULT_K = 5;
const MAX_LIST = 100;
const DEFAULT_LIST = 20;
const MAX_QUERY_CHARS = 1000;

const kindProperty = { type: 'string', enum: [...MEMORY_KINDS], description: 'preference, fact, project, task_summary or note' };

export const MEMORY_TOOLS: Tool[] = [
  {
    name: SEARCH,
    description: 'Search what the user asked you to remember. Returns the closest memories with their id, kind, text, score (similarity, higher is closer) and time.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What to look for, in words the memory would use' },
        k: { type: 'integer', minimum: 1, maximum: MAX_K, description: `How many memories at most (default ${DEFAULT_K})` },
        kind: kindProperty,
        min_score: { type: 'number', minimum: -1, maximum: 1, description: 'Leave out memories less similar than this' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { [META_RISK]: 'read' },
  },
  {
    name: SAVE,
    description:
      'Remember one thing the user asked you to keep (a preference, a fact about them, a project, a summary of a task, a note), in their words, ' +
      'one fact per memory. Credentials, card numbers and id numbers are kept only if the user confirms.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: MAX_MEMORY_CHARS, description: 'The fact itself, complete enough to be understood alone' },
        kind: kindProperty,
      },
      required: ['text', 'kind'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
    _meta: { [META_RISK]: 'write', [META_SENSITIVE_ARGUMENT]: 'text', [META_ALLOW_UNLESS_SENSITIVE]: true },
  },
  {
    name: FORGET,
    description: 'Forget one memory for good, by the id that memory.search or memory.list gave.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1, description: 'The memory id' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true },
    _meta: { [META_RISK]: 'write' },
  },
  {
    name: LIST,
    description: 'List the most recent memories, newest first, optionally of one kind.',
    inputSchema: {
      type: 'object',
      properties: {
        kind: kindProperty,
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `How many at most (default ${DEFAULT_LIST})` },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { [META_RISK]: 'read' },
  },
];

export interface SearchArgs {
  query: string;
  k: number;
  kind?: MemoryKind;
  minScore?: number;
}

export function searchArgs(raw: unknown): SearchArgs {
  const args = objectOf(raw, SEARCH, ['query', 'k', 'kind', 'min_score']);
  const query = text(args.query, 'query', MAX_QUERY_CHARS);
  const k = optionalInteger(args.k, 'k', 1, MAX_K) ?? DEFAULT_K;
  const minScore = args.min_score === undefined ? undefined : numberIn(args.min_score, 'min_score', -1, 1);
  return { query, k, ...optionalKind(args.kind), ...(minScore === undefined ? {} : { minScore }) };
}

export function saveArgs(raw: unknown): { text: string; kind: MemoryKind } {
  const args = objectOf(raw, SAVE, ['text', 'kind']);
  if (args.kind === undefined) throw invalid('kind is required: one of preference, fact, project, task_summary, note');
  const kind = optionalKind(args.kind).kind as MemoryKind;
  return { text: text(args.text, 'text', MAX_MEMORY_CHARS), kind };
}

export function forgetArgs(raw: unknown): { id: number } {
  const args = objectOf(raw, FORGET, ['id']);
  const id = optionalInteger(args.id, 'id', 1, Number.MAX_SAFE_INTEGER);
  if (id === undefined) throw invalid('id is required: the id memory.search or memory.list gave');
  return { id };
}

export function listArgs(raw: unknown): { kind?: MemoryKind; limit: number } {
  const args = objectOf(raw, LIST, ['kind', 'limit']);
  return { ...optionalKind(args.kind), limit: optionalInteger(args.limit, 'limit', 1, MAX_LIST) ?? DEFAULT_LIST };
}

function objectOf(raw: unknown, tool: string, known: string[]): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`the arguments of ${tool} must be an object`);
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw invalid(`unknown argument ${unknown.join(', ')}; ${tool} takes ${known.join(', ')}`);
  return raw as Record<string, unknown>;
}

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${name} must be a non-empty string`);
  if (value.length > max) throw invalid(`${name} is ${value.length} characters; at most ${max}`);
  return value;
}

function optionalInteger(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function numberIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw invalid(`${name} must be a number from ${min} to ${max}`);
  return value;
}

function optionalKind(value: unknown): { kind?: MemoryKind } {
  if (value === undefined) return {};
  if (!isMemoryKind(value)) throw invalid(`kind must be one of ${MEMORY_KINDS.join(', ')}, not ${JSON.stringify(value)}`);
  return { kind: value };
}

function invalid(message: string): AppError {
  return new AppError('MEMORY_ARGUMENTS_INVALID', message);
}
