import { describe, expect, it } from 'vitest';
import { WavFileInput } from '../../../src/voice/audio/index.js';
import { Endpointer, resolveEndpointerConfig, type EndpointerEvent, type SpeechEndEvent, type WordsVerdict } from '../../../src/voice/vad/index.js';
import { endpointFrames, findUtterances } from '../../support/segments.js';
import { ScriptedVad, levelVad, script } from './scripted-vad.js';

const W = 512;
const F = 320;

/** Audio whose every sample is its own position (mod 2^15), so a slice shows where it came from. */
function numbered(length: number): Int16Array {
  return Int16Array.from({ length }, (_, i) => i % 32768);
}

async function run(endpointer: Endpointer, audio: Int16Array, chunk = F): Promise<EndpointerEvent[]> {
  const events: EndpointerEvent[] = [];
  for (let from = 0; from < audio.length; from += chunk) events.push(...(await endpointer.push(audio.subarray(from, from + chunk))));
  events.push(...(await endpointer.flush()));
  return events;
}

const brief = (events: EndpointerEvent[]) =>
  events.map((e) => (e.type === 'speech_start' ? [e.type, e.frameIndex, e.detectedAtFrameIndex] : [e.type, e.frameIndex, e.endFrameIndex, e.audioStartFrameIndex, e.samples.length, e.detectedAtFrameIndex]));

describe('Endpointer (scripted VAD)', () => {
  it('reports nothing for silence, and scores whole windows of the stream', async () => {
    const vad = new ScriptedVad(() => 0.01);
    expect(await run(new Endpointer(vad), new Int16Array(F * 100))).toEqual([]);
    // 32000 samples: 62 whole windows and a last one padded with silence.
    expect(vad.windows.length).toBe(63);
    expect(vad.windows.every((w) => w.length === W)).toBe(true);
  });

  it('finds one utterance: start after minSpeech, end after endSilence, padded both sides', async () => {
    const vad = new ScriptedVad(script([0, 10], [1, 20], [0, 30]));
    const audio = numbered(60 * W);
    const events = await run(new Endpointer(vad), audio);
    // Onset: window 10 = sample 5120 = frame 16. Confirmed by 8 voiced windows (256 ms >= 250),
    // i.e. once sample 9215 (frame 28) is in. Voiced until sample 15360 (frame 48); 16 silent
    // windows (512 ms >= 500) later, at sample 23551 (frame 73), it ends.
    expect(brief(events)).toEqual([
      ['speech_start', 16, 28],
      ['speech_end', 16, 48, 1, 20160 - 320, 73],
    ]);
    // Audio from onset - 300 ms (frame 1) to the voiced end + 300 ms, exactly those samples.
    const end = events[1]!;
    expect(end.type === 'speech_end' && end.samples).toEqual(audio.slice(320, 20160));
  });

  it('hands the pre-roll out with speech_start: the padded onset up to the last sample pushed, which the samples of its end continue', async () => {
    const audio = numbered(60 * W);
    const events = await run(new Endpointer(new ScriptedVad(script([0, 10], [1, 20], [0, 30]))), audio);
    const [start, end] = events;
    if (start?.type !== 'speech_start' || end?.type !== 'speech_end') throw new Error('expected a start and an end');
    // Confirmed once frame 28 was in: from frame 1 (the onset less 300 ms) to the end of frame 28.
    expect(start.audioStartFrameIndex).toBe(1);
    expect(start.samples).toEqual(audio.slice(320, 29 * F));
    expect(end.samples.subarray(0, start.samples.length)).toEqual(start.samples);
  });

  it('ends early after sentenceEndSilenceMs when the words are a finished sentence, and only then', async () => {
    const events = async (check: (() => WordsVerdict) | undefined) => {
      const endpointer = new Endpointer(new ScriptedVad(script([0, 10], [1, 20], [0, 40])), { sentenceEndSilenceMs: 200 });
      endpointer.setEndCheck(check);
      return brief(await run(endpointer, numbered(60 * W)));
    };
    // Voiced until frame 48; 7 silent windows (224 ms >= 200) later, at sample 18943 (frame 59), it ends,
    // its suffix padding cut to what was pushed by then (frames 1-59).
    expect(await events(() => 'finished')).toEqual([
      ['speech_start', 16, 28],
      ['speech_end', 16, 48, 1, 19200 - 320, 59],
    ]);
    const asked: number[] = [];
    const refused = await events(() => (asked.push(1), 'unknown'));
    expect(refused[1]).toEqual(['speech_end', 16, 48, 1, 20160 - 320, 73]);
    // Asked on every silent window from 200 ms until the full end silence ended it.
    expect(asked.length).toBe(16 - 7);
    expect((await events(undefined))[1]).toEqual(refused[1]);
  });

  it('waits unfinishedSilenceMs when the words stop open, and says which rule ended the utterance', async () => {
    const ended = async (verdict: WordsVerdict) => {
      const endpointer = new Endpointer(new ScriptedVad(script([0, 10], [1, 20], [0, 50])), { sentenceEndSilenceMs: 200, unfinishedSilenceMs: 1000 });
      endpointer.setEndCheck(() => verdict);
      const events = await run(endpointer, numbered(80 * W));
      return events.find((e) => e.type === 'speech_end') as SpeechEndEvent;
    };
    const open = await ended('open');
    const unknown = await ended('unknown');
    const finished = await ended('finished');
    expect([finished.rule, unknown.rule, open.rule]).toEqual(['complete', 'silence', 'silence']);
    // 7 windows (224 ms), 16 (512 ms), 32 (1024 ms) of silence.
    expect([finished.silenceMs, unknown.silenceMs, open.silenceMs]).toEqual([224, 512, 1024]);
    expect(open.endFrameIndex).toBe(unknown.endFrameIndex);
    // 16 windows of 512 samples later, in 20 ms frames.
    expect(open.detectedAtFrameIndex - unknown.detectedAtFrameIndex).toBe(Math.round(((32 - 16) * 512) / F));
    // The input ending ends it whatever the words say.
    const flushed = new Endpointer(new ScriptedVad(script([0, 10], [1, 20], [0, 10])), { unfinishedSilenceMs: 1000 });
    flushed.setEndCheck(() => 'open');
    const last = (await run(flushed, numbered(40 * W))).at(-1) as SpeechEndEvent;
    expect(last.rule).toBe('stopped');
  });

  it('clamps the prefix to the start of the stream', async () => {
    const events = await run(new Endpointer(new ScriptedVad(script([1, 20], [0, 30]))), numbered(50 * W));
    expect(brief(events)).toEqual([
      ['speech_start', 0, 12],
      ['speech_end', 0, 32, 0, 20 * W + 4800, 57],
    ]);
  });

  it('ignores bursts shorter than minSpeech, and is not fooled by them into an earlier onset', async () => {
    const vad = new ScriptedVad(script([0, 5], [1, 5], [0, 20], [1, 10], [0, 20]));
    const events = await run(new Endpointer(vad), new Int16Array(60 * W));
    expect(events.map((e) => [e.type, e.frameIndex])).toEqual([
      ['speech_start', 48],
      ['speech_end', 48],
    ]);
  });

  it('holds speech through dips: between thresholds forever, below for under endSilence', async () => {
    const between = await run(new Endpointer(new ScriptedVad(script([0.9, 10], [0.4, 100], [0, 20]))), new Int16Array(130 * W));
    expect(between.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    const shortGap = await run(new Endpointer(new ScriptedVad(script([0.9, 10], [0.1, 15], [0.9, 10], [0, 20]))), new Int16Array(55 * W));
    expect(shortGap.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    const longGap = await run(new Endpointer(new ScriptedVad(script([0.9, 10], [0.1, 16], [0.9, 10], [0, 20]))), new Int16Array(56 * W));
    expect(longGap.map((e) => e.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
  });

  it('never lets the next prefix overlap the previous utterance', async () => {
    const audio = numbered(70 * W);
    const events = await run(new Endpointer(new ScriptedVad(script([1, 10], [0, 16], [1, 10], [0, 30]))), audio);
    const ends = events.filter((e) => e.type === 'speech_end');
    expect(ends.length).toBe(2);
    const [first, second] = ends;
    const firstEnd = first!.audioStartFrameIndex * F + first!.samples.length;
    expect(second!.audioStartFrameIndex * F).toBe(firstEnd);
    expect(second!.samples[0]).toBe(audio[firstEnd]);
  });

  it('ends an utterance under way at the end of the input, and drops an unconfirmed one', async () => {
    const cut = await run(new Endpointer(new ScriptedVad(script([0, 10], [1, 20]))), numbered(30 * W + 100));
    expect(brief(cut)).toEqual([
      ['speech_start', 16, 28],
      ['speech_end', 16, 48, 1, 30 * W + 100 - 320, 48],
    ]);
    const unconfirmed = await run(new Endpointer(new ScriptedVad(script([0, 10], [1, 5]))), new Int16Array(15 * W));
    expect(unconfirmed).toEqual([]);
  });

  it('gives the same segments however the audio is chunked', async () => {
    const audio = new Int16Array(16000 * 6);
    for (const [from, to] of [[8000, 30000], [50000, 52000], [60000, 80000]] as const) audio.fill(3000, from, to);
    // A start's pre-roll runs to the last sample pushed, so it depends on the chunking; the end's samples hold it.
    const strip = (events: EndpointerEvent[]) => events.map((e) => ({ ...e, detectedAtFrameIndex: 0, ...(e.type === 'speech_start' ? { samples: new Int16Array(0) } : {}) }));
    const byFrame = strip(await run(new Endpointer(levelVad()), audio));
    expect(byFrame.map((e) => e.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
    for (const chunk of [50, 777, 4096]) expect(strip(await run(new Endpointer(levelVad()), audio, chunk))).toEqual(byFrame);
    expect((await findUtterances(audio, levelVad())).length).toBe(2);
    const fromInput: EndpointerEvent[] = [];
    for await (const event of endpointFrames(new WavFileInput('t', audio).frames(), new Endpointer(levelVad()))) fromInput.push(event);
    expect(fromInput).toEqual(await run(new Endpointer(levelVad()), audio));
  });

  it('orders concurrent pushes, resets the VAD, and restarts positions after flush', async () => {
    const vad = new ScriptedVad(script([1, 20], [0, 20], [1, 20], [0, 20]));
    const endpointer = new Endpointer(vad);
    expect(vad.resets).toBe(1);
    const frames = Array.from({ length: (40 * W) / F }, () => new Int16Array(F));
    const events = (await Promise.all(frames.map((f) => endpointer.push(f)))).flat();
    expect(events.map((e) => [e.type, e.frameIndex])).toEqual([
      ['speech_start', 0],
      ['speech_end', 0],
    ]);
    await endpointer.flush();
    expect(vad.resets).toBe(2);
    const again = await run(endpointer, new Int16Array(40 * W));
    expect(again.map((e) => [e.type, e.frameIndex])).toEqual([
      ['speech_start', 0],
      ['speech_end', 0],
    ]);
  });

  it('reset drops frames queued or being scored before it; a push queued after flush is kept', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new ScriptedVad(() => 1);
    const probability = slow.probability.bind(slow);
    slow.probability = async (window) => {
      await gate;
      return probability(window);
    };
    const endpointer = new Endpointer(slow);
    const inFlight = endpointer.push(new Int16Array(W));
    const queued = endpointer.push(new Int16Array(W * 20));
    endpointer.reset();
    release();
    expect(await inFlight).toEqual([]);
    expect(await queued).toEqual([]);
    const after = await run(endpointer, new Int16Array(10 * W));
    expect(after.map((e) => [e.type, e.frameIndex])).toEqual([
      ['speech_start', 0],
      ['speech_end', 0],
    ]);

    const next = new Endpointer(new ScriptedVad(() => 1));
    // Not awaited on purpose: the third call must wait for these two (a failure would still fail the run, unhandled).
    void next.push(new Int16Array(10 * W));
    void next.flush();
    const kept = await next.push(new Int16Array(10 * W));
    expect(kept.map((e) => [e.type, e.frameIndex])).toEqual([['speech_start', 0]]);
  });

  it('rejects a VAD answer that is not a number', async () => {
    const endpointer = new Endpointer(new ScriptedVad(() => Number.NaN));
    await expect(endpointer.push(new Int16Array(W))).rejects.toMatchObject({ code: 'VAD_OUTPUT_INVALID' });
  });
});

describe('endpointer config', () => {
  it('has the documented defaults, negative threshold 0.15 below', () => {
    expect(resolveEndpointerConfig()).toEqual({
      threshold: 0.5,
      negativeThreshold: 0.35,
      minSpeechMs: 250,
      endSilenceMs: 500,
      sentenceEndSilenceMs: 0,
      unfinishedSilenceMs: 0,
      prefixPaddingMs: 300,
      suffixPaddingMs: 300,
    });
    expect(resolveEndpointerConfig({ threshold: 0.1 }).negativeThreshold).toBe(0.01);
  });

  it('names the key that is wrong', () => {
    for (const bad of [{ threshold: 0 }, { threshold: 0.5, negativeThreshold: 0.6 }, { minSpeechMs: -1 }, { endSilenceMs: 0 }, { suffixPaddingMs: 600 }, { prefixPaddingMs: Number.NaN }, { sentenceEndSilenceMs: 500 }]) {
      const key = Object.keys(bad).at(-1)!;
      expect(() => resolveEndpointerConfig(bad), key).toThrow(expect.objectContaining({ code: 'VAD_CONFIG_INVALID', message: expect.stringContaining(key) }));
    }
  });
});
