import { describe, expect, it } from 'vitest';
import { allowListedEnv } from '../../src/process/index.js';

describe('the environment of third-party servers', () => {
  it('keeps what a program needs and drops everything else', () => {
    const env = allowListedEnv({ PATH: '/bin', HOME: '/home/you', LC_ALL: 'C', XDG_RUNTIME_DIR: '/run/user/1', OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'ghp_x', AWS_SECRET_ACCESS_KEY: 'y' });
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/you', LC_ALL: 'C', XDG_RUNTIME_DIR: '/run/user/1' });
  });
});

describe('the one allow-list, for every child that gets one', () => {
  it("keeps what whisper-server, espeak-ng and amixer need: the GPU's, the voices' and the sound server's variables", () => {
    const needed = {
      LD_LIBRARY_PATH: '/opt/cuda/lib',
      CUDA_VISIBLE_DEVICES: '1',
      GGML_CUDA_NO_PINNED: '1',
      ESPEAK_DATA_PATH: '/opt/espeak',
      PULSE_SERVER: 'unix:/run/user/1/pulse/native',
      PULSE_COOKIE: '/home/you/.config/pulse/cookie',
      ALSA_CONFIG_PATH: '/etc/asound.conf',
      LC_MESSAGES: 'it_IT.UTF-8',
    };
    expect(allowListedEnv({ ...needed, ANTHROPIC_API_KEY: 'k', SSH_AUTH_SOCK: '/tmp/agent', DESKTOP_ASSISTANT_TOKEN: 't' })).toEqual(needed);
  });

  it("reads this process's environment by default", () => {
    expect(allowListedEnv()).toEqual(allowListedEnv(process.env));
    expect(allowListedEnv().PATH).toBe(process.env.PATH);
  });
});
