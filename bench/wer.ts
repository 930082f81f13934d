import { WavFileInput } from '../src/voice/audio/index.js';
import { PocketsphinxStt, wordErrors } from '../src/voice/stt/index.js';
import { Endpointer, SileroVad } from '../src/voice/vad/index.js';
import type { Stt } from '../src/voice/types.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './benchmark.js';
import { librivoxClips, withTrailingSilence } from './speech-clips.js';
import { round } from './stats.js';

/**
 * Word error rate of pocketsphinx on the five LibriVox clips, two ways: on
 * each raw file, and through the voice's capture path (the file read as 20
 * ms frames, the Silero endpointer cutting the utterance with its padding,
 * the utterance's samples to the recognizer). The pipeline must not make
 * recognition worse.
 */
export const wer: Benchmark = {
  name: 'wer',
  description: 'pocketsphinx word error rate on the LibriVox clips: raw files vs through the capture path (frames, VAD)',
  run: runWer,
};

async function runWer(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const clips = await librivoxClips();
  const stt = new PocketsphinxStt();
  const model = await SileroVad.load();
  const figures: Figures = { clips: clips.length };
  const totals = { raw: { errors: 0, words: 0 }, pipeline: { errors: 0, words: 0 } };
  try {
    for (const [i, clip] of clips.entries()) {
      options.signal?.throwIfAborted();
      const raw = await finalText(stt, clip.samples);
      const endpointer = new Endpointer(model);
      const input = new WavFileInput(clip.name, withTrailingSilence(clip.samples, 1000));
      const utterances: Int16Array[] = [];
      for await (const frame of input.frames()) {
        for (const event of await endpointer.push(frame.samples)) if (event.type === 'speech_end') utterances.push(event.samples);
      }
      for (const event of await endpointer.flush()) if (event.type === 'speech_end') utterances.push(event.samples);
      const heard: string[] = [];
      for (const utterance of utterances) heard.push(await finalText(stt, utterance));
      const through = heard.join(' ');
      const rawErrors = wordErrors(clip.transcript, raw);
      const pipeErrors = wordErrors(clip.transcript, through);
      totals.raw.errors += rawErrors.errors;
      totals.raw.words += rawErrors.referenceWords;
      totals.pipeline.errors += pipeErrors.errors;
      totals.pipeline.words += pipeErrors.referenceWords;
      Object.assign(figures, {
        [`clip${i + 1}_raw_wer`]: round(rawErrors.errors / rawErrors.referenceWords),
        [`clip${i + 1}_pipeline_wer`]: round(pipeErrors.errors / pipeErrors.referenceWords),
        [`clip${i + 1}_utterances`]: utterances.length,
      });
      process.stderr.write(`wer: ${clip.name}\n  reference: ${clip.transcript}\n  raw:       ${raw}\n  pipeline:  ${through}\n`);
    }
  } finally {
    await model.close();
    await stt.close();
  }
  const rawWer = totals.raw.errors / totals.raw.words;
  const pipelineWer = totals.pipeline.errors / totals.pipeline.words;
  return { ...figures, raw_wer: round(rawWer), pipeline_wer: round(pipelineWer), pipeline_not_worse: String(pipelineWer <= rawWer) };
}

async function finalText(stt: Stt, samples: Int16Array): Promise<string> {
  let text = '';
  for await (const result of stt.transcribe(samples)) if (result.final) text = result.text;
  return text;
}
