import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { definitionHash, openStateDb, SqlitePinStore, type StateDb } from '../../../src/host/store/index.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

let dir: TempDir;
let state: StateDb;
beforeEach(async () => {
  dir = await makeTempDir('da-pins-');
  state = openStateDb(dir.path);
});
afterEach(async () => {
  state.close();
  await dir.remove();
});

const tool = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } };

describe('SqlitePinStore', () => {
  it('stores a pin per server and tool, replaces it, and keeps it across a reopen', () => {
    const pins = new SqlitePinStore(state);
    expect(pins.get('everything', 'echo')).toBeUndefined();
    const first = definitionHash(tool, 'npx server-everything');
    pins.put({ server: 'everything', tool: 'echo', hash: first.hash, definition: first.canonical, approvedAtMs: 1000 });
    pins.put({ server: 'other', tool: 'echo', hash: 'other-hash', definition: '{}', approvedAtMs: 1500 });
    expect(pins.get('everything', 'echo')).toEqual({
      server: 'everything',
      tool: 'echo',
      hash: first.hash,
      definition: first.canonical,
      approvedAtMs: 1000,
    });
    const changed = definitionHash({ ...tool, description: 'Echoes, then more' }, 'npx server-everything');
    pins.put({ server: 'everything', tool: 'echo', hash: changed.hash, definition: changed.canonical, approvedAtMs: 2000 });
    state.close();
    state = openStateDb(dir.path);
    const reopened = new SqlitePinStore(state);
    expect(reopened.get('everything', 'echo')?.hash).toBe(changed.hash);
    expect(reopened.get('everything', 'echo')?.approvedAtMs).toBe(2000);
    expect(reopened.get('other', 'echo')?.hash).toBe('other-hash');
    expect(reopened.list().map((p) => `${p.server}/${p.tool}`)).toEqual(['everything/echo', 'other/echo']);
  });

  it('forgets a pin', () => {
    const pins = new SqlitePinStore(state);
    pins.put({ server: 's', tool: 't', hash: 'h', definition: '{}', approvedAtMs: 1 });
    expect(pins.delete('s', 't')).toBe(true);
    expect(pins.delete('s', 't')).toBe(false);
    expect(pins.get('s', 't')).toBeUndefined();
  });
});
