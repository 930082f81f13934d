import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/index.js';
import { builtinToolsServerSpec, commandLine, thirdPartyServerSpecs, toolsServerPath } from '../../../src/host/hub/index.js';
import { TOOLS_SERVER } from '../../helpers/paths.js';

describe('builtinToolsServerSpec', () => {
  it('runs the compiled tools server with this node over the config folder, trusted and built in', () => {
    expect(toolsServerPath()).toBe(TOOLS_SERVER);
    expect(existsSync(toolsServerPath())).toBe(true);
    expect(builtinToolsServerSpec('/cfg')).toEqual({
      name: 'tools',
      command: process.execPath,
      args: [TOOLS_SERVER, '--config-dir', '/cfg'],
      trusted: true,
      builtin: true,
      callTimeoutMs: 60_000,
    });
  });
});

describe('thirdPartyServerSpecs', () => {
  it('maps [mcp.<name>] to specs, skipping disabled ones, timeout in ms', () => {
    const config = configSchema.parse({
      mcp: {
        zeta: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN_FILE: '/k' }, trusted: true, timeout: 2.5 },
        alpha: { command: '~/bin/server', cwd: '~/work' },
        off: { command: 'nothing', enabled: false },
      },
    });
    expect(thirdPartyServerSpecs(config.mcp)).toEqual([
      {
        name: 'alpha',
        command: join(homedir(), 'bin/server'),
        args: [],
        env: {},
        cwd: join(homedir(), 'work'),
        trusted: false,
        builtin: false,
        inheritEnv: 'allow-list',
        callTimeoutMs: 60_000,
      },
      { name: 'zeta', command: 'npx', args: ['-y', 'some-server'], env: { TOKEN_FILE: '/k' }, trusted: true, builtin: false, inheritEnv: 'allow-list', callTimeoutMs: 2500 },
    ]);
    expect(thirdPartyServerSpecs({})).toEqual([]);
  });
});

describe('commandLine', () => {
  it('quotes only the arguments that need it', () => {
    expect(commandLine({ command: '/usr/bin/node', args: ['server.js', '--name', "it's here", 'a b'] })).toBe(
      "/usr/bin/node server.js --name 'it'\\''s here' 'a b'",
    );
  });
});
