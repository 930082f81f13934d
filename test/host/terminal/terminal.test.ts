import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createAssistantBus } from '../../../src/events/index.js';
import { LineInput, reportToTerminal, terminalConfirmation } from '../../../src/host/terminal/index.js';

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

const request = { callId: 'c', turnId: 't', entry: 'text' as const, tool: 'note', server: 'tools', risk: 'write' as const, argsSummary: '{"text":"milk"}' };

describe('the terminal reporter', () => {
  it('prints tool calls, latencies and errors from events alone', () => {
    const bus = createAssistantBus();
    const out = sink();
    const stop = reportToTerminal(bus, out.stream);
    bus.emit({ type: 'tool.started', stage: 'tool', callId: 'c', tool: 'weather', server: 'tools', entry: 'text', argsSummary: '{"place":"Rome"}', cancellable: true, atMs: 0 });
    bus.emit({ type: 'tool.ended', stage: 'tool', callId: 'c', tool: 'weather', status: 'ok', durationMs: 12.4, outputChars: 25, truncated: false, atMs: 1 });
    bus.emit({ type: 'error', stage: 'llm', code: 'LLM_UNREACHABLE', message: 'cannot reach', recoverable: true, atMs: 2 });
    bus.emit({ type: 'llm.delta', stage: 'llm', text: 'not shown', atMs: 3 });
    stop();
    bus.emit({ type: 'error', stage: 'llm', code: 'AFTER', message: 'not shown', recoverable: true, atMs: 4 });
    expect(out.text()).toBe('[tool] weather {"place":"Rome"}\n[tool] weather: ok, 12 ms, 25 chars\n[error] LLM_UNREACHABLE: cannot reach\n');
  });

  it('prints what full duplex hears and does: partials, interruptions, resumes, states', () => {
    const bus = createAssistantBus();
    const out = sink();
    const stop = reportToTerminal(bus, out.stream);
    bus.emit({ type: 'voice.transcript', stage: 'stt', text: 'stop tal', stable: 'stop', final: false, atMs: 0 });
    // The same stable words: a revision the terminal does not repeat.
    bus.emit({ type: 'voice.transcript', stage: 'stt', text: 'stop tell', stable: 'stop', final: false, atMs: 0 });
    bus.emit({ type: 'voice.interrupted', stage: 'voice', turnId: 'duplex-1', source: 'barge_in', speechStartedAtMs: 10, latencyMs: 141.6, atMs: 1 });
    bus.emit({ type: 'state.changed', stage: 'conversation', state: 'interrupted', previous: 'speaking', atMs: 2 });
    bus.emit({ type: 'voice.resumed', stage: 'voice', turnId: 'duplex-1', sentence: 1, atMs: 3 });
    bus.emit({ type: 'voice.interrupted', stage: 'voice', turnId: 'duplex-2', source: 'api', speechStartedAtMs: 20, latencyMs: 0.4, atMs: 4 });
    stop();
    expect(out.text()).toBe(
      '[hearing] stop tal\n[voice] interrupted: playback stopped 142 ms after the speech began\n[state] interrupted\n[voice] no words came: the reply goes on from sentence 2\n' +
        '[voice] interrupted (POST /interrupt): playback stopped\n',
    );
  });

  it("prints a spoken turn's stages: the rule that ended it, the reply asked ahead and what became of it", () => {
    const bus = createAssistantBus();
    const out = sink();
    const stop = reportToTerminal(bus, out.stream);
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'started', speculationId: 's1', text: 'what time is it', atMs: 0 });
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'discarded', speculationId: 's1', text: 'what time is it', reason: 'the user went on', wastedPieces: 7, atMs: 1 });
    bus.emit({ type: 'voice.speech', stage: 'vad', phase: 'end', frame: 80, durationMs: 1600, endRule: 'complete', silenceMs: 256, atMs: 2 });
    bus.emit({ type: 'llm.speculation', stage: 'llm', phase: 'used', speculationId: 's2', turnId: 't', text: 'what time is it in Rome', atMs: 3 });
    bus.emit({ type: 'voice.speech', stage: 'vad', phase: 'end', frame: 90, durationMs: 900, endRule: 'silence', silenceMs: 704, atMs: 4 });
    bus.emit({ type: 'voice.device', stage: 'voice', device: 'output', status: 'lost', message: 'the sound server has gone', atMs: 5 });
    bus.emit({ type: 'voice.device', stage: 'voice', device: 'output', status: 'restored', message: 'playing again', atMs: 6 });
    stop();
    expect(out.text()).toBe(
      '[llm] a reply asked ahead while you paused\n[llm] the reply asked ahead is dropped: the user went on, 7 pieces thrown away\n' +
        '[voice] speech ended (1600 ms of audio; a finished sentence after 256 ms of silence)\n[llm] the reply asked ahead is used\n' +
        '[voice] speech ended (900 ms of audio; the whole silence after 704 ms of silence)\n' +
        '[voice] the speaker is gone: the sound server has gone\n[voice] the speaker is back\n',
    );
  });
});

describe('the terminal confirmation', () => {
  it('approves on y and denies on anything else, queueing lines typed ahead', async () => {
    const input = new PassThrough();
    const out = sink();
    const lines = new LineInput(input, out.stream);
    const channel = terminalConfirmation(lines, out.stream);
    input.write('y\nno\n');
    expect(await channel.confirm(request, { signal: new AbortController().signal })).toEqual({ answer: 'approved' });
    expect(await channel.confirm(request, { signal: new AbortController().signal })).toEqual({ answer: 'denied' });
    expect(out.text()).toContain('Allow note (write risk, server tools) with {"text":"milk"}? [y/N]');
    lines.close();
  });

  it('gives up when the router stops waiting', async () => {
    const input = new PassThrough();
    const out = sink();
    const lines = new LineInput(input, out.stream);
    const controller = new AbortController();
    const pending = terminalConfirmation(lines, out.stream).confirm(request, { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ answer: 'denied' });
    input.write('y\n');
    expect(await lines.next()).toBe('y');
    lines.close();
  });

  it('denies at end of input', async () => {
    const input = new PassThrough();
    const out = sink();
    const lines = new LineInput(input, out.stream);
    input.end();
    expect(await terminalConfirmation(lines, out.stream).confirm(request, { signal: new AbortController().signal })).toEqual({ answer: 'denied' });
  });
});
