import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../fakes/scripted-llm-server.js';
import { refusedUrl } from '../helpers/http-stub.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';

let home: TempDir;
let llm: ScriptedLlmServer;

beforeEach(async () => {
  home = await makeTempDir('da-doctor-');
  llm = await startScriptedLlmServer();
});
afterEach(async () => {
  await llm.close();
  await home.remove();
});

async function doctor(toml: string): Promise<{ code: number; results: { name: string; ok: boolean; detail: string; fix?: string; skipped?: boolean }[]; text: string }> {
  await home.write('config/config.toml', toml);
  const env = { DESKTOP_ASSISTANT_DATA_DIR: join(home.path, 'data') };
  const args = ['doctor', '--config-dir', join(home.path, 'config')];
  const json = await runCli([...args, '--json'], env);
  const text = await runCli(args, env);
  return { code: json.code, results: JSON.parse(json.stdout) as never, text: text.stdout };
}

describe('desktop-assistant doctor', () => {
  it('passes what is in place and skips what is off', async () => {
    const { code, results } = await doctor(`llm = "${llm.url}"\n[voice]\nenabled = false\n`);
    const byName = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(byName.LLM).toMatchObject({ ok: true, detail: `${llm.url} answers` });
    expect(byName['STT (pocketsphinx)']?.ok).toBe(true);
    expect(byName['TTS (espeak-ng)']?.ok).toBe(true);
    expect(byName['audio devices']).toMatchObject({ ok: true, skipped: true });
    expect(byName['echo canceller (full duplex)']).toMatchObject({ ok: true, skipped: true });
    expect(byName['FAISS (memory)']?.ok).toBe(true);
    expect(byName['data folder']?.ok).toBe(true);
    expect(code).toBe(results.every((r) => r.ok) ? 0 : 1);
  });

  it('names each failure with the exact fix, and exits 1', async () => {
    const url = await refusedUrl();
    const { code, results, text } = await doctor(
      `llm = "${url}/v1"\n[stt]\nengine = "whisper"\n[whisper]\nbinary = "no-such-whisper-server"\n[tts]\nengine = "kokoro"\n[kokoro]\nmodel = "/nonexistent/kokoro.onnx"\n[adapters.browser]\nchromium = "/nonexistent/chromium"\n[voice]\nenabled = false\n`,
    );
    expect(code).toBe(1);
    const failedNames = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failedNames).toEqual(expect.arrayContaining(['LLM', 'STT (whisper)', 'TTS (kokoro)', 'Chromium']));
    expect(text).toMatch(/FAIL {2}LLM .*cannot reach .*\/v1\/models: .*\n {6}fix: start an OpenAI-compatible server there/);
    expect(text).toContain('no-such-whisper-server is not on PATH');
    expect(text).toContain('missing /nonexistent/kokoro.onnx');
    expect(text).toMatch(/\d+ problems found\n$/);
  });

  it('checks the echo canceller when the voice is full duplex, and says which one runs', async () => {
    const { results } = await doctor(`llm = "${llm.url}"\nmode = "full_duplex_agent"\n`);
    const check = results.find((r) => r.name === 'echo canceller (full duplex)');
    // Built by the set-up on this machine: it runs; legacy is the default.
    expect(check).toMatchObject({ ok: true, detail: expect.stringMatching(/^the legacy AEC .* runs \(\[duplex\] canceller = "legacy"\)$/) });
    expect(check?.skipped).toBeFalsy();
  });

  it('reports AEC3 when [duplex] canceller = "aec3"', async () => {
    const { results, text } = await doctor(`llm = "${llm.url}"\nmode = "full_duplex_agent"\n[duplex]\ncanceller = "aec3"\n`);
    const check = results.find((r) => r.name === 'echo canceller (full duplex)');
    // Installed by npm ci from @livekit/rtc-ffi-bindings: it runs.
    expect(check).toMatchObject({ ok: true, detail: expect.stringMatching(/^AEC3 .* runs \(\[duplex\] canceller = "aec3"\)$/) });
    expect(text).toContain('AEC3 (WebRTC\'s current echo canceller, from @livekit/rtc-ffi-bindings) runs');
  });
});
