import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ALLOWED_PROGRAMS } from './command-policy.js';
import { MAX_ARG_CHARS, MAX_ARGS } from './input.js';
import { META_RISK, META_TIMEOUT_MS } from '../../src/tool-meta/index.js';
import type { RunLimits } from './runner.js';

/** The host offers it to the model as `shell_readonly`. */
export const TOOL_NAME = 'shell.readonly';

/** The tool as listed: its description names the allowed directories and limits, so the model knows them up front. */
export function shellTool(roots: readonly string[], limits: RunLimits): Tool {
  const dirs = roots.length > 0 ? roots.join(', ') : '(none exists: every call fails)';
  return {
    name: TOOL_NAME,
    title: 'Read-only shell command',
    description: [
      `Runs one read-only command without a shell and returns its output. argv[0] is one of: ${ALLOWED_PROGRAMS.join(', ')}`,
      '(git: status, log, diff, show, and branch to list).',
      `cwd and every path argument must resolve, symlinks followed, inside: ${dirs}. cwd defaults to ${roots[0] ?? 'the first of them'}.`,
      'Arguments are passed literally: no pipes, redirection, globs, ~ or $VARIABLES (use find -name, or grep -r --include, for patterns).',
      'Refused: anything that writes, deletes, runs another program, follows symlinks out or never ends, e.g. find -exec/-delete/-fprint,',
      'sort -o, tail -f, grep -R, ls -L, git -c/--output/--ext-diff, git branch NAME; devices and FIFOs are not read.',
      `Output is cut at ${limits.maxOutputChars} characters; a command is stopped after ${limits.timeoutMs / 1000} s.`,
      'Errors come back as {"error":{"code":...}}: SHELL_COMMAND_REFUSED, SHELL_PATH_OUTSIDE, SHELL_ARGUMENTS_INVALID, SHELL_TIMEOUT, SHELL_FAILED.',
    ].join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        argv: {
          type: 'array',
          items: { type: 'string', maxLength: MAX_ARG_CHARS },
          minItems: 1,
          maxItems: MAX_ARGS,
          description: 'The program and its arguments, e.g. ["grep", "-rn", "TODO", "src"].',
        },
        cwd: { type: 'string', maxLength: MAX_ARG_CHARS, description: 'Working directory: absolute, or relative to the first allowed directory.' },
      },
      required: ['argv'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
    _meta: { [META_RISK]: 'read', [META_TIMEOUT_MS]: limits.timeoutMs },
  };
}
