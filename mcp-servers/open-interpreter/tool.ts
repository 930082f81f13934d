import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export const TOOL_NAME = 'openinterpreter.run';
export const MAX_TASK_CHARS = 4000;

export const META_RISK = 'desktop-assistant/risk';
export const META_ANNOUNCE = 'desktop-assistant/announce';
export const META_TIMEOUT_MS = 'desktop-assistant/timeoutMs';
/** On each result: classifyTask() of the call's task. */
export const META_TASK_RISK = 'desktop-assistant/taskRisk';

const DESCRIPTION =
  'Hands a task in plain language to Open Interpreter, an external program that lets a language model ' +
  'write and run code (shell, Python and more) on this computer without asking first, and returns what it printed. ' +
  'It can read, change and delete files, install software and reach the network, so use it only for a task the user ' +
  'asked for that no other tool can do. The task runs in the configured working folder, or in `cwd` when that is ' +
  'a folder inside it (a relative `cwd` is read against the working folder).';

/**
 * The one tool. Declared `high`: Open Interpreter runs whatever code its LLM
 * writes, so the router confirms or refuses it per policy.
 */
export function interpreterTool(timeoutMs: number): Tool {
  return {
    name: TOOL_NAME,
    title: 'Open Interpreter',
    description: DESCRIPTION,
    inputSchema: {
      type: 'object',
      properties: {
        task: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_TASK_CHARS,
          // Not '-' first: the command would read the task as an option.
          pattern: '^[^-]',
          description: 'What to do, in plain language.',
        },
        cwd: { type: 'string', minLength: 1, description: 'A folder inside the working folder to run in; default the working folder.' },
      },
      required: ['task'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    _meta: {
      [META_RISK]: 'high',
      [META_ANNOUNCE]: { en: ['Handing that to Open Interpreter.'], it: ['Passo il compito a Open Interpreter.'] },
      [META_TIMEOUT_MS]: timeoutMs,
    },
  };
}

export interface RunArguments {
  task: string;
  cwd?: string;
}

/** The call's arguments checked against the schema, or why not. */
export function parseRunArguments(value: unknown): RunArguments | { invalid: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { invalid: 'arguments must be a JSON object' };
  const args = value as Record<string, unknown>;
  const unknown = Object.keys(args).filter((key) => key !== 'task' && key !== 'cwd');
  if (unknown.length > 0) return { invalid: `unknown argument ${unknown.join(', ')}` };

  const { task, cwd } = args;
  if (typeof task !== 'string') return { invalid: 'task must be a string' };
  // Code points, as JSON Schema's maxLength counts them.
  const length = [...task].length;
  if (task.trim() === '') return { invalid: 'task is empty' };
  if (length > MAX_TASK_CHARS) return { invalid: `task is ${length} characters; at most ${MAX_TASK_CHARS}` };
  // A NUL cannot travel in an argv element.
  if (task.includes('\0')) return { invalid: 'task contains a NUL character' };
  // As its own argv element a task starting with '-' would be read as an
  // option by the CLI (`--api_base=...`, `--profile=...`), not as the task.
  if (task.startsWith('-')) return { invalid: "task must not begin with '-': the command would read it as an option" };

  if (cwd === undefined) return { task };
  if (typeof cwd !== 'string' || cwd === '') return { invalid: 'cwd must be a non-empty string' };
  if (cwd.includes('\0')) return { invalid: 'cwd contains a NUL character' };
  return { task, cwd };
}
