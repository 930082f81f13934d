import { isAbsolute, resolve } from 'node:path';
import { expandHome, type Config } from '../../src/config/index.js';

/** What a call needs from `[adapters.openinterpreter]` and `[env]`, with times in milliseconds. */
export interface InterpreterSettings {
  /** A name looked up on PATH at each call, or a path. */
  command: string;
  /** Argument templates: `{task}` inside an element is replaced by the task. */
  args: readonly string[];
  /** The folder tasks run in (home expanded); a call may name one inside it. */
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  /** `[env]` of config.toml: the owner's own additions to the child's environment. */
  extraEnv: Readonly<Record<string, string>>;
}

export function interpreterSettings(config: Config, configDir: string): InterpreterSettings {
  const section = config.adapters.openinterpreter;
  const command = expandHome(section.command);
  return {
    // A relative path with a slash is read against the config folder, the one
    // place the config file itself can count on; a bare name means PATH.
    command: command.includes('/') && !isAbsolute(command) ? resolve(configDir, command) : command,
    args: [...section.args],
    cwd: resolve(configDir, expandHome(section.cwd)),
    timeoutMs: section.timeout.ms,
    maxOutputChars: section.max_output_chars,
    extraEnv: Object.fromEntries(Object.entries(config.env).map(([key, value]) => [key, String(value)])),
  };
}

/**
 * The argv after the command: `{task}` is replaced inside each element
 * (`--message={task}` works); without any, the task is the last argument.
 */
export function buildArgs(templates: readonly string[], task: string): string[] {
  const placeholder = '{task}';
  if (!templates.some((t) => t.includes(placeholder))) return [...templates, task];
  // split/join rather than replace(): a `$&` in the task must stay literal.
  return templates.map((t) => t.split(placeholder).join(task));
}
