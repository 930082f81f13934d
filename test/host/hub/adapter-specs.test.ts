import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/index.js';
import { builtinAdapterSpecs } from '../../../src/host/hub/index.js';

const names = (raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  builtinAdapterSpecs(configSchema.parse({ adapters: raw }).adapters, '/cfg', env).map((s) => s.name);

describe('which adapters the hub starts', () => {
  it('starts shell-readonly and browser by default, Open Interpreter only when turned on', () => {
    expect(names({})).toEqual(['shell-readonly', 'browser']);
    expect(names({ openinterpreter: { enabled: true } })).toEqual(['shell-readonly', 'open-interpreter', 'browser']);
  });

  it('follows OWNER_OPENINTERPRETER_ENABLED over the config', () => {
    expect(names({}, { OWNER_OPENINTERPRETER_ENABLED: '1' })).toContain('open-interpreter');
    expect(names({ openinterpreter: { enabled: true } }, { OWNER_OPENINTERPRETER_ENABLED: '0' })).not.toContain('open-interpreter');
  });

  it('leaves out adapters turned off, and passes the config folder', () => {
    expect(names({ shell_readonly: { enabled: false }, browser: { enabled: false } })).toEqual([]);
    const [spec] = builtinAdapterSpecs(configSchema.parse({}).adapters, '/cfg', {});
    expect(spec).toMatchObject({ trusted: true, builtin: true });
    expect(spec?.args.slice(-2)).toEqual(['--config-dir', '/cfg']);
  });
});
