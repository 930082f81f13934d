/**
 * The house rules, read off the import graph (static imports, re-exports,
 * type imports and dynamic `import()`s, as TypeScript's own pre-processor
 * finds them):
 * - a module outside a folder that has an index.ts goes through that
 *   index.ts, never past it to a file inside (src/ and mcp-servers/);
 * - src/voice never imports src/host (the voice says what it needs in
 *   src/voice/host-ports.ts; the host hands it over);
 * - src imports neither mcp-servers/, bench/ nor test/; mcp-servers/
 *   neither bench/ nor test/; test/ never bench/;
 * - no cycle among the modules of src/ and mcp-servers/;
 * - node:child_process only in src/process (processes have one module);
 * - every folder of src/ and mcp-servers/ is guarded: by an index.ts door
 *   (its own or an enclosing folder's) or by one of the explicit rules:
 *   each MCP server (mcp-servers/<name>) is a program that imports no
 *   other server's files (mcp-servers/shared is for all); the command line
 *   (src/host/cli) is imported by no one outside it but doctor, for the
 *   service unit's name; the application shell (src/host's own files,
 *   daemon and runtime) only by the command line; the HTTP routes
 *   (src/host/http/routes) only by the HTTP app around them. A folder's
 *   own door is what guards it: an enclosing folder's door does not keep
 *   that folder's other files out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();

/** One import: from a file to a file, both relative to the root, `.ts`. */
type Edge = [from: string, to: string];

function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  walk(join(ROOT, folder));
  return out;
}

/** The process module of Node, as an edge's target: the one bare import the rules look at. */
const CHILD_PROCESS = 'node:child_process';

function importsOf(file: string): Edge[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const specifiers = importedFiles.map((imported) => imported.fileName);
  return [
    ...specifiers
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier): Edge => [relative(ROOT, file), relative(ROOT, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts')]),
    ...specifiers.filter((specifier) => specifier === CHILD_PROCESS || specifier === 'child_process').map((): Edge => [relative(ROOT, file), CHILD_PROCESS]),
  ];
}

/** Folders guarded by an explicit rule instead of a door (see the rules above). */
function explicitlyGuarded(folder: string): boolean {
  return (
    /^mcp-servers\/[^/]+$/.test(folder) ||
    folder === 'mcp-servers' ||
    /^src\/host\/cli(\/|$)/.test(folder) ||
    folder === 'src/host' ||
    folder === 'src/host/http/routes' ||
    folder === 'src'
  );
}

/** Folders of src/ and mcp-servers/ that neither a door of their own nor an explicit rule guards. */
function unguarded(folders: readonly string[], hasIndex: (folder: string) => boolean): string[] {
  return folders.filter((folder) => !hasIndex(folder) && !explicitlyGuarded(folder));
}

/** Pure: the rules above, over `edges`; `hasIndex(folder)` says whether a folder has an index.ts. */
function violations(edges: readonly Edge[], hasIndex: (folder: string) => boolean): string[] {
  const found: string[] = [];
  const under = (path: string, folder: string) => path.startsWith(`${folder}/`);
  for (const [from, to] of edges) {
    const production = under(from, 'src') || under(from, 'mcp-servers');
    if (production) {
      for (let folder = dirname(to); folder.includes('/'); folder = dirname(folder)) {
        if (!hasIndex(folder) || under(from, folder) || to === `${folder}/index.ts`) continue;
        found.push(`${from} imports ${to} past ${folder}/index.ts`);
        break;
      }
    }
    if (under(from, 'src/voice') && under(to, 'src/host')) found.push(`${from} imports ${to}: the voice does not import the host`);
    for (const outside of ['mcp-servers', 'bench', 'test']) {
      if (under(from, 'src') && under(to, outside)) found.push(`${from} imports ${to}: src does not import ${outside}/`);
    }
    for (const outside of ['bench', 'test']) {
      if (under(from, 'mcp-servers') && under(to, outside)) found.push(`${from} imports ${to}: mcp-servers does not import ${outside}/`);
    }
    if (under(from, 'test') && under(to, 'bench')) found.push(`${from} imports ${to}: tests do not import bench/`);
    if (production && to === CHILD_PROCESS && !under(from, 'src/process')) found.push(`${from} imports ${to}: processes are started by src/process only`);
    const server = /^mcp-servers\/([^/]+)\//.exec(from)?.[1];
    const other = /^mcp-servers\/([^/]+)\//.exec(to)?.[1];
    if (server && other && other !== server && other !== 'shared') found.push(`${from} imports ${to}: an MCP server does not import another's files`);
    if (under(to, 'src/host/cli') && production && !under(from, 'src/host/cli') && !(from === 'src/doctor/daemon-checks.ts' && to === 'src/host/cli/systemd-unit.ts')) {
      found.push(`${from} imports ${to}: only the command line imports itself`);
    }
    if (/^src\/host\/[^/]+\.ts$/.test(to) && production && !under(from, 'src/host/cli') && !/^src\/host\/[^/]+\.ts$/.test(from)) {
      found.push(`${from} imports ${to}: the application shell is for the command line`);
    }
    if (under(to, 'src/host/http/routes') && production && !under(from, 'src/host/http')) found.push(`${from} imports ${to}: the routes are the HTTP app's`);
  }
  return [...found, ...cycles(edges.filter(([from, to]) => [from, to].every((p) => under(p, 'src') || under(p, 'mcp-servers'))))];
}

function cycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, 'open' | 'done'>();
  const found: string[] = [];
  const visit = (node: string, path: string[]): void => {
    state.set(node, 'open');
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') found.push(`cycle: ${[...path.slice(path.indexOf(to)), node, to].join(' -> ')}`);
      else if (!state.has(to)) visit(to, [...path, node]);
    }
    state.set(node, 'done');
  };
  for (const node of next.keys()) if (!state.has(node)) visit(node, []);
  return found;
}

describe('the rules themselves', () => {
  const indexes = new Set(['src/voice', 'src/voice/tts', 'src/host', 'src/host/router']);
  const hasIndex = (folder: string) => indexes.has(folder);

  it('catch each kind of break', () => {
    expect(
      violations(
        [
          ['src/doctor/checks.ts', 'src/voice/tts/espeak.ts'],
          ['src/doctor/checks.ts', 'src/voice/tts/index.ts'],
          ['src/voice/session/x.ts', 'src/host/router/index.ts'],
          ['src/host/cli/a.ts', 'mcp-servers/tools/stdio.ts'],
          ['test/voice/a.test.ts', 'bench/stats.ts'],
          ['src/a.ts', 'src/b.ts'],
          ['src/b.ts', 'src/a.ts'],
          ['src/voice/tts/espeak.ts', CHILD_PROCESS],
          ['mcp-servers/browser/main.ts', 'mcp-servers/memory/store.ts'],
          ['src/memory/store.ts', 'src/host/cli/main.ts'],
          ['src/memory/store.ts', 'src/host/daemon.ts'],
        ],
        hasIndex,
      ),
    ).toEqual([
      'src/doctor/checks.ts imports src/voice/tts/espeak.ts past src/voice/tts/index.ts',
      'src/doctor/checks.ts imports src/voice/tts/index.ts past src/voice/index.ts',
      'src/voice/session/x.ts imports src/host/router/index.ts past src/host/index.ts',
      'src/voice/session/x.ts imports src/host/router/index.ts: the voice does not import the host',
      'src/host/cli/a.ts imports mcp-servers/tools/stdio.ts: src does not import mcp-servers/',
      'test/voice/a.test.ts imports bench/stats.ts: tests do not import bench/',
      'src/voice/tts/espeak.ts imports node:child_process: processes are started by src/process only',
      'mcp-servers/browser/main.ts imports mcp-servers/memory/store.ts: an MCP server does not import another\'s files',
      'src/memory/store.ts imports src/host/cli/main.ts past src/host/index.ts',
      'src/memory/store.ts imports src/host/cli/main.ts: only the command line imports itself',
      'src/memory/store.ts imports src/host/daemon.ts past src/host/index.ts',
      'src/memory/store.ts imports src/host/daemon.ts: the application shell is for the command line',
      'cycle: src/a.ts -> src/b.ts -> src/a.ts',
    ]);
  });

  it('find a folder no door and no rule guards', () => {
    expect(unguarded(['src/voice', 'src/voice/tts', 'src/voice/session', 'src/host/cli/commands', 'mcp-servers/browser', 'src/host/http/routes', 'src/memory'], hasIndex)).toEqual([
      'src/voice/session',
      'src/memory',
    ]);
  });

  it('let a folder use its own files, and tests any module', () => {
    expect(
      violations(
        [
          ['src/voice/live.ts', 'src/voice/tts/index.ts'],
          ['src/voice/tts/espeak.ts', 'src/voice/tts/chunks.ts'],
          ['test/voice/tts/espeak.test.ts', 'src/voice/tts/espeak.ts'],
        ],
        hasIndex,
      ),
    ).toEqual([]);
  });
});

describe('the import graph of this checkout', () => {
  it('keeps every rule', () => {
    const files = ['src', 'mcp-servers', 'test', 'bench'].flatMap(sourceFiles);
    const edges = files.flatMap(importsOf);
    // Enough edges that a broken reader (no imports found) cannot pass.
    expect(edges.length).toBeGreaterThan(1000);
    const folders = new Set(files.filter((f) => f.endsWith(`${sep}index.ts`)).map((f) => relative(ROOT, dirname(f))));
    expect(violations(edges, (folder) => folders.has(folder))).toEqual([]);
  });

  it('guards every folder of src/ and mcp-servers/', () => {
    const all = ['src', 'mcp-servers'].flatMap(sourceFiles).map((f) => relative(ROOT, dirname(f)));
    const folders = new Set(['src', 'mcp-servers'].flatMap(sourceFiles).filter((f) => f.endsWith(`${sep}index.ts`)).map((f) => relative(ROOT, dirname(f))));
    expect(unguarded([...new Set(all)], (folder) => folders.has(folder))).toEqual([]);
  });
});
