import { describe, expect, it } from 'vitest';
import { allowListedEnv } from '../../../src/host/hub/allowed-env.js';

describe('the environment of third-party servers', () => {
  it('keeps what a program needs and drops everything else', () => {
    const env = allowListedEnv({ PATH: '/bin', HOME: '/home/you', LC_ALL: 'C', XDG_RUNTIME_DIR: '/run/user/1', OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp_x', AWS_SECRET_ACCESS_KEY: 'y' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/you', LC_ALL: 'C', XDG_RUNTIME_DIR: '/run/user/1' });
  });
});
