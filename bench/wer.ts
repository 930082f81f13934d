import { WavFileInput } from '../src/voice/audio/index.js';
import { RedecodingStt } from '../src/voice/streaming/index.js';
import { transcribeWhole } from '../test/support/transcribe-whole.js';
import { PocketsphinxStt, ResidentPocketsphinxStt } from '../src/voice/stt/index.js';
import { wordErrors } from '../test/support/wer.js';
import type { RecognitionSession, StreamingStt, Vad } from '../src/voice/types.js';
import { Endpointer, SileroVad } from '../src/voice/vad/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './lib/benchmark.js';
import { CARDS_GRAMMAR, cardsClips, librivoxClips, withTrailingSilence, type SpeechClip } from '../test/support/speech-clips.js';
import { round } from '../test/support/stats.js';

/**
 * Word error rate of both pocketsphinx engines on the same clips in one run:
 * the resident decoder and the spawned pocketsphinx_continuous, on the five
 * LibriVox clips (language model) and the five cards clips (language model,
 * and the cards JSGF grammar). Each two ways: the raw file at once, and
 * through the voice's capture path (20 ms frames, the Silero endpointer;
 * recognition opened at its speech start with the pre-roll, fed every frame,
 * finished at its end, as the voice does). The resident engine also through
 * the capture path with the sentence-end rule (`[vad] sentence_end_silence_ms`
 * 250, the clip played in real time): its word errors, and how many
 * utterances it cut the clips into (every clip is one utterance by the
 * 500 ms rule).
 */
export const wer: Benchmark = {
  name: 'wer',
  description: 'word error rate, resident pocketsphinx vs pocketsphinx_continuous, LibriVox and cards clips: raw files and through the capture path (frames, VAD, streaming)',
  run: runWer,
};

/** The shorter end silence tried when recognition hears a finished sentence. */
const SENTENCE_END_SILENCE_MS = 250;

interface Count {
  errors: number;
  words: number;
}

async function runWer(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const sets: Array<{ name: string; clips: SpeechClip[]; jsgf?: string }> = [
    { name: 'librivox', clips: await librivoxClips() },
    { name: 'cards', clips: await cardsClips() },
    { name: 'cards_grammar', clips: await cardsClips(), jsgf: CARDS_GRAMMAR },
  ];
  const vad = await SileroVad.load();
  const figures: Figures = {};
  try {
    for (const set of sets) {
      const grammar = set.jsgf === undefined ? {} : { jsgf: set.jsgf };
      const engines: Array<[string, StreamingStt]> = [
        ['resident', await ResidentPocketsphinxStt.create(grammar)],
        ['spawned', new RedecodingStt(new PocketsphinxStt(grammar), { partialIntervalMs: 0 })],
      ];
      try {
        for (const [engine, stt] of engines) {
          const totals = { raw: { errors: 0, words: 0 }, pipeline: { errors: 0, words: 0 }, sentenceEnd: { errors: 0, words: 0 } };
          let utterances = 0;
          let sentenceEndUtterances = 0;
          for (const clip of set.clips) {
            options.signal?.throwIfAborted();
            const raw = (await transcribeWhole(stt, clip.samples)).text;
            const through = await throughCapturePath(stt, vad, clip, 0);
            add(totals.raw, clip.transcript, raw);
            add(totals.pipeline, clip.transcript, through.text);
            utterances += through.utterances;
            let early = '';
            if (engine === 'resident') {
              const cut = await throughCapturePath(stt, vad, clip, SENTENCE_END_SILENCE_MS);
              add(totals.sentenceEnd, clip.transcript, cut.text);
              sentenceEndUtterances += cut.utterances;
              early = `\n  sentence end (${cut.utterances} utterances): ${cut.text}`;
            }
            process.stderr.write(`wer ${set.name} ${engine} ${clip.name}\n  reference: ${clip.transcript}\n  raw:       ${raw}\n  pipeline:  ${through.text}${early}\n`);
          }
          Object.assign(figures, {
            [`${set.name}_${engine}_raw_wer`]: round(totals.raw.errors / totals.raw.words),
            [`${set.name}_${engine}_pipeline_wer`]: round(totals.pipeline.errors / totals.pipeline.words),
            [`${set.name}_${engine}_pipeline_utterances`]: utterances,
          });
          if (engine === 'resident') {
            Object.assign(figures, {
              [`${set.name}_resident_sentence_end_wer`]: round(totals.sentenceEnd.errors / totals.sentenceEnd.words),
              [`${set.name}_resident_sentence_end_utterances`]: sentenceEndUtterances,
            });
          }
        }
      } finally {
        await Promise.allSettled(engines.map(([, stt]) => stt.close()));
      }
    }
  } finally {
    await vad.close();
  }
  return figures;
}

function add(count: Count, reference: string, heard: string): void {
  const { errors, referenceWords } = wordErrors(reference, heard);
  count.errors += errors;
  count.words += referenceWords;
}

/**
 * The clip (plus 1 s of silence) as a microphone would give it; the words of every utterance
 * the endpointer found, and how many there were.
 */
async function throughCapturePath(stt: StreamingStt, vad: Vad, clip: SpeechClip, sentenceEndSilenceMs: number): Promise<{ text: string; utterances: number }> {
  const endpointer = new Endpointer(vad, { sentenceEndSilenceMs });
  // The sentence-end rule asks how long the decoder's words have stood: at a microphone's pace,
  // as in the voice, the decoder keeps up; fed as fast as a file reads, it would lag the VAD.
  const input = new WavFileInput(clip.name, withTrailingSilence(clip.samples, 1000), { realtime: sentenceEndSilenceMs > 0 });
  const heard: string[] = [];
  let open: RecognitionSession | undefined;
  const onEvents = async (events: Awaited<ReturnType<Endpointer['push']>>): Promise<void> => {
    for (const event of events) {
      if (event.type === 'speech_start') {
        const session = stt.startUtterance();
        session.push(event.samples);
        endpointer.setEndCheck(() => ((session.sentenceComplete?.(sentenceEndSilenceMs) ?? false) ? 'finished' : 'unknown'));
        open = session;
      } else if (open) {
        heard.push((await open.finish()).text);
        open = undefined;
        endpointer.setEndCheck(undefined);
      }
    }
  };
  for await (const frame of input.frames()) {
    open?.push(frame.samples);
    await onEvents(await endpointer.push(frame.samples));
  }
  await onEvents(await endpointer.flush());
  return { text: heard.join(' '), utterances: heard.length };
}
