/**
 * The sound server killed and started again under a running daemon
 * (`desktop-assistant run`, turn-based, on a private PulseAudio null sink):
 * the recording under way ends with VOICE_DEVICE_LOST instead of hanging,
 * GET /state says what is missing while it is, POST /listen/start answers
 * VOICE_DEVICE_LOST (never VOICE_BUSY), and within 3 s of the server's
 * return a recording starts again and a spoken question is heard and
 * answered. The daemon never exits and keeps no extra child process.
 * Skipped, with the reason, where PulseAudio or naudiodon cannot run.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { childProcesses } from '../helpers/process-state.js';
import { LONG_REPLY, restartablePulseForTests, voiceDaemonPerTest } from '../helpers/voice-daemon.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);
const { pulse, skipReason } = await restartablePulseForTests('voice recovery');

describe.skipIf(skipReason !== undefined)('the voice across a restart of the sound server', () => {
  const voice = voiceDaemonPerTest(() => pulse!);

  it('ends the recording, says what is missing, refuses with VOICE_DEVICE_LOST, and listens again within 3 s of the server returning', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-voice-recovery-');
    const fds = () => readdirSync(`/proc/${d.pid}/fd`).length;
    const threads = () => readdirSync(`/proc/${d.pid}/task`).length;

    expect(await d.state()).toMatchObject({ voice: { enabled: true, listening: false } });
    expect((await d.state()).voice.missing).toBeUndefined();
    const childrenBefore = childProcesses(d.pid).length;
    const fdsBefore = fds();
    const threadsBefore = threads();

    // A recording under way (the sink is silent: it goes on until something ends it).
    expect(await d.listenStart()).toMatchObject({ status: 200, body: { listening: true } });
    await server.kill();
    const killedAt = Date.now();

    // Noticed within a few seconds: the recording ends, /state says what is missing.
    const missing = await waitFor(async () => {
      const now = await d.state();
      return now.voice.missing?.length && !now.voice.listening ? now.voice.missing : undefined;
    }, 'GET /state to say a device is missing', 8000);
    const noticedMs = Date.now() - killedAt;
    expect(missing.map((device) => device.message).join(' ')).toMatch(/the (microphone|speaker) \(default\) is missing: .*comes back by itself/);
    await waitFor(() => (d.stderr().includes('[error] VOICE_DEVICE_LOST: the recording stopped') ? true : undefined), 'the recording to end with VOICE_DEVICE_LOST', 8000);
    expect((await d.state()).state).toBe('idle');

    // While it is away: a clear refusal, never VOICE_BUSY; /health and the daemon stay up.
    for (let i = 0; i < 5; i++) {
      const refused = await d.listenStart();
      expect(refused.status).toBe(503);
      expect(refused.body.error?.code).toBe('VOICE_DEVICE_LOST');
      expect(refused.body.error?.message).toContain('is missing');
      expect((await fetch(`${d.url}/health`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    d.alive();

    // The server returns: a recording starts again within 3 s, by itself.
    const { spawnedAtMs } = await server.start();
    const returnedAt = Date.now();
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'POST /listen/start to work again', 10_000);
    const recoveredMs = Date.now() - returnedAt;
    console.info(
      `voice recovery: lost noticed ${noticedMs} ms after the kill; listening again ${recoveredMs} ms after the server served audio again ` +
        `(${Date.now() - spawnedAtMs} ms after its process started, ${returnedAt - spawnedAtMs} ms of which the null sink took to render)`,
    );
    expect(recoveredMs).toBeLessThan(3000);
    expect((await d.state()).voice.missing).toBeUndefined();

    // And a spoken question is heard and answered.
    llm.enqueue({ text: 'The light is on.' });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 0 ? true : undefined), 'the question to reach the LLM', 20_000);
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'turn on the light' });
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the reply to be spoken', 20_000);
    expect(await d.listenStart()).toMatchObject({ status: 200 });
    await d.listenStop();
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the voice to be idle', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    d.alive();
    expect(childProcesses(d.pid).length).toBe(childrenBefore);
    // The lost streams are closed (naudiodon's close of a dead output waits at most 500 ms: scripts/build-naudiodon.sh).
    console.info(`descriptors ${fdsBefore} -> ${fds()}, threads ${threadsBefore} -> ${threads()}`);
    expect(fds()).toBeLessThanOrEqual(fdsBefore);
    expect(threads()).toBeLessThanOrEqual(threadsBefore);
  }, 90_000);

  it('a reply cut off by the kill ends with VOICE_DEVICE_LOST (not VOICE_BUSY), and the voice answers again once the server is back', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-voice-recovery-reply-');

    llm.enqueue({ text: LONG_REPLY });
    expect(await d.listenStart()).toMatchObject({ status: 200 });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(async () => ((await d.state()).state === 'speaking' ? true : undefined), 'the reply to be spoken', 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.kill();
    const killedAt = Date.now();

    await waitFor(() => (d.stderr().includes('[error] VOICE_DEVICE_LOST: the reply stopped') ? true : undefined), 'the reply to end with VOICE_DEVICE_LOST', 10_000);
    const endedMs = Date.now() - killedAt;
    const now = await d.state();
    expect(now.state).toBe('idle');
    expect(now.voice.missing?.map((device) => device.device)).toContain('output');
    const refused = await d.listenStart();
    expect(refused.status).toBe(503);
    expect(refused.body.error?.code).toBe('VOICE_DEVICE_LOST');
    // The turn itself completed: its whole reply is in the conversation (the page and GET /state show it).
    expect(d.stderr()).toMatch(/\[turn\] ok in \d+ ms/);

    const { spawnedAtMs } = await server.start();
    const returnedAt = Date.now();
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'POST /listen/start to work again', 10_000);
    const recoveredMs = Date.now() - returnedAt;
    console.info(`reply cut off: ended ${endedMs} ms after the kill; listening again ${recoveredMs} ms after the server served audio (${Date.now() - spawnedAtMs} ms after its process started)`);
    expect(recoveredMs).toBeLessThan(3000);

    llm.enqueue({ text: 'The light is on.' });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 1 ? true : undefined), 'the second question to reach the LLM', 20_000);
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the second reply to be spoken', 20_000);
    expect(d.stderr().match(/\[error\] VOICE_DEVICE_LOST: the reply stopped/g)).toHaveLength(1);
    d.alive();
  }, 90_000);

  it('a quick restart (a headset plug): the idle voice notices its dead stream and listens again within 3 s of the server serving audio', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-voice-recovery-quick-');
    // Idle for a while: the speaker's stream is steady.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await server.kill();
    const killedAt = Date.now();
    const { spawnedAtMs } = await server.start();
    const returnedAt = Date.now();
    // The old stream is dead even though the server is back: it must be noticed and opened again.
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'POST /listen/start to work again', 10_000);
    const recoveredMs = Date.now() - returnedAt;
    console.info(`quick restart: server back ${spawnedAtMs - killedAt} ms after the kill, serving audio ${returnedAt - spawnedAtMs} ms later; listening again ${recoveredMs} ms after that`);
    expect(recoveredMs).toBeLessThan(3000);
    await d.listenStop();
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the voice to be idle', 10_000);
    // A recording now really records: a reply is spoken to the end on the new stream.
    llm.enqueue({ text: 'The light is on.' });
    expect(await d.listenStart()).toMatchObject({ status: 200 });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 0 ? true : undefined), 'the question to reach the LLM', 20_000);
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the reply to be spoken', 20_000);
    expect(d.stderr()).not.toContain('VOICE_BUSY');
    d.alive();
  }, 90_000);

  it('five restarts in a row leave no descriptor, thread or blocked worker behind', async () => {
    const server = pulse!;
    const { llm, daemon: d, spoken } = await voice.start('da-voice-recovery-five-');
    const fds = () => readdirSync(`/proc/${d.pid}/fd`).length;
    const threads = () => readdirSync(`/proc/${d.pid}/task`).length;
    // Steady first: both streams open and delivering.
    await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), 'the first recording', 10_000);
    await d.listenStop();
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the voice to be idle', 10_000);
    const fdsBefore = fds();
    const threadsBefore = threads();
    for (let round = 1; round <= 5; round++) {
      await server.kill();
      await waitFor(async () => ((await d.state()).voice.missing?.length ? true : undefined), `restart ${round}: the loss to be noticed`, 8000);
      await server.start();
      await waitFor(async () => ((await d.listenStart()).status === 200 ? true : undefined), `restart ${round}: listening again`, 10_000);
      await d.listenStop();
      await waitFor(async () => ((await d.state()).state === 'idle' && !(await d.state()).voice.missing ? true : undefined), `restart ${round}: idle`, 10_000);
    }
    // The decoder runs on libuv's pool of four workers: a close that blocked a worker each time would leave it none by now.
    llm.enqueue({ text: 'The light is on.' });
    expect(await d.listenStart()).toMatchObject({ status: 200 });
    await run('paplay', [spoken], { env: { ...process.env, ...server.env } });
    await waitFor(() => (llm.requests.length > 0 ? true : undefined), 'the question to reach the LLM after five restarts', 20_000);
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'turn on the light' });
    await waitFor(async () => ((await d.state()).state === 'idle' ? true : undefined), 'the reply to be spoken', 20_000);
    d.alive();
    console.info(`five restarts: descriptors ${fdsBefore} -> ${fds()}, threads ${threadsBefore} -> ${threads()}`);
    expect(fds()).toBeLessThanOrEqual(fdsBefore);
    expect(threads()).toBeLessThanOrEqual(threadsBefore);
  }, 180_000);
});
