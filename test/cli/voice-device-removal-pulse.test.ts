/**
 * The devices unplugged under a running daemon while the sound server stays
 * up (`desktop-assistant run`, turn-based, on a private PulseAudio whose
 * null sink, the speaker, and its monitor, the microphone, are unloaded and
 * loaded again, as a USB headset's are): GET /state says what is missing,
 * POST /listen/start answers VOICE_DEVICE_LOST meanwhile, a reply under way
 * ends with VOICE_DEVICE_LOST, and within 3 s of the devices' return the
 * voice listens again and answers, with no descriptor, thread or child
 * process left behind. Skipped, with the reason, where PulseAudio or
 * naudiodon cannot run.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { childProcesses } from '../helpers/process-state.js';
import { LONG_REPLY, restartablePulseForTests, voiceDaemonPerTest } from '../helpers/voice-daemon.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);
const { pulse, skipReason } = await restartablePulseForTests('device removal');

describe.skipIf(skipReason !== undefined)('the voice across an unplugged and replugged device', () => {
  const voice = voiceDaemonPerTest(() => pulse!);

  it('idle: says the devices are missing, refuses to listen, and listens and answers again within 3 s of their return', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-device-removal-');
    const fds = () => readdirSync(`/proc/${d.pid}/fd`).length;
    const threads = () => readdirSync(`/proc/${d.pid}/task`).length;
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'the first recording', 10_000);
    await d.listenStop();
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the voice to be idle', 10_000);
    const before = { fds: fds(), threads: threads(), children: childProcesses(d.pid).length };

    await server.removeDevices();
    const removedAt = Date.now();
    const missing = await waitFor(async () => (await d.state()).voice.missing, 'GET /state to say the devices are missing', 8000);
    const noticedMs = Date.now() - removedAt;
    expect(missing.map((device) => device.message).join(' ')).toMatch(/is missing: .*comes back by itself/);
    const refused = await d.listenStart();
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe('VOICE_DEVICE_LOST');
    expect((await fetch(`${d.url}/health`)).status).toBe(200);

    await server.addDevices();
    const returnedAt = Date.now();
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'POST /listen/start to work again', 10_000);
    const recoveredMs = Date.now() - returnedAt;
    console.info(`devices unplugged: noticed ${noticedMs} ms after; listening again ${recoveredMs} ms after they rendered again`);
    expect(recoveredMs).toBeLessThan(3000);
    expect((await d.state()).voice.missing).toBeUndefined();

    llm.enqueue({ text: 'The light is on.' });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 0 ? true : undefined), 'the question to reach the LLM', 20_000);
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'turn on the light' });
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the reply to be spoken', 20_000);
    d.alive();
    console.info(`descriptors ${before.fds} -> ${fds()}, threads ${before.threads} -> ${threads()}`);
    expect(fds()).toBeLessThanOrEqual(before.fds);
    expect(threads()).toBeLessThanOrEqual(before.threads);
    expect(childProcesses(d.pid).length).toBe(before.children);
  }, 90_000);

  it('mid-reply: the reply ends with VOICE_DEVICE_LOST, and the next question is answered once the devices are back', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-device-removal-reply-');

    llm.enqueue({ text: LONG_REPLY });
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'the first recording', 10_000);
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(async () => ((await d.state()).state === 'speaking' ? true : undefined), 'the reply to be spoken', 20_000);
    await server.removeDevices();
    const removedAt = Date.now();

    await waitFor(() => (d.stderr().includes('[error] VOICE_DEVICE_LOST: the reply stopped') ? true : undefined), 'the reply to end with VOICE_DEVICE_LOST', 10_000);
    const endedMs = Date.now() - removedAt;
    expect((await d.state()).state).toBe('idle');
    expect((await d.state()).voice.missing?.map((device) => device.device)).toContain('output');

    await server.addDevices();
    const returnedAt = Date.now();
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'POST /listen/start to work again', 10_000);
    const recoveredMs = Date.now() - returnedAt;
    console.info(`speaker unplugged mid-reply: the reply ended ${endedMs} ms after; listening again ${recoveredMs} ms after the devices rendered again`);
    expect(recoveredMs).toBeLessThan(3000);

    llm.enqueue({ text: 'The light is on.' });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 1 ? true : undefined), 'the second question to reach the LLM', 20_000);
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the second reply to be spoken', 20_000);
    expect(d.stderr().match(/\[error\] VOICE_DEVICE_LOST: the reply stopped/g)).toHaveLength(1);
    d.alive();
  }, 90_000);
});
