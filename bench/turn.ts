import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssistantEvent } from '../src/events/index.js';
import { noConfirmationChannel } from '../src/host/router/index.js';
import { startHost } from '../src/host/runtime.js';
import { NullOutput, WavFileInput } from '../src/voice/audio/index.js';
import { detectorFromConfig, sttFromConfig, transcriptCheck, ttsFromConfig } from '../src/voice/engines.js';
import { Speaker } from '../src/voice/session/speaker.js';
import { VoiceSession } from '../src/voice/session/voice-session.js';
import { sanitizeForSpeech, sentenceLanguagePicker } from '../src/voice/tts/index.js';
import type { Benchmark, BenchmarkRunOptions, Figures } from './benchmark.js';
import { startBenchLlm } from './scripted-llm.js';
import { librivoxClips, withTrailingSilence } from './speech-clips.js';
import { distribution } from './stats.js';

const ROUNDS = 3;
const REPLY = 'It is sunny in Rome today. Expect about twenty degrees by noon.';
const TRAILING_SILENCE_MS = 1500;

/**
 * One voice turn, stage by stage, with real audio in real time: each
 * LibriVox clip (plus 1.5 s of silence) is played into the pipeline at 16
 * kHz wall-clock pace as a microphone would deliver it, through Silero VAD,
 * pocketsphinx, the conversation with a scripted LLM (streamed at once, so
 * the figures are the pipeline's own), espeak-ng, to a null output. From
 * the end of speech in the audio: when the VAD called it, the final
 * transcript, the LLM's first token and first sentence, the first audio out.
 */
export const turn: Benchmark = {
  name: 'turn',
  description: 'per-stage latency of a voice turn on real speech played in real time (VAD, pocketsphinx, scripted LLM, espeak-ng)',
  run: runTurn,
};

async function runTurn(options: BenchmarkRunOptions = {}): Promise<Figures> {
  const llm = await startBenchLlm(REPLY);
  const root = await mkdtemp(join(tmpdir(), 'bench-turn-'));
  const configDir = join(root, 'config');
  await mkdir(join(configDir, 'tools'), { recursive: true });
  await writeFile(join(configDir, 'config.toml'), `llm = "${llm.url}"\n[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n`);
  const host = await startHost({ configDir, env: { ...process.env, DESKTOP_ASSISTANT_DATA_DIR: join(root, 'data') } });
  const [stt, tts, detector] = await Promise.all([sttFromConfig(host.config), ttsFromConfig(host.config), detectorFromConfig(host.config)]);
  const stages: Record<string, number[]> = { vad_end: [], stt_final: [], llm_first_token: [], llm_first_sentence: [], first_audio: [] };
  try {
    const clips = await librivoxClips();
    for (let round = 0; round < ROUNDS; round++) {
      for (const clip of clips) {
        options.signal?.throwIfAborted();
        const events: AssistantEvent[] = [];
        const stop = host.bus.subscribe((e) => events.push(e));
        const session = new VoiceSession({
          input: new WavFileInput(clip.name, withTrailingSilence(clip.samples, TRAILING_SILENCE_MS), { realtime: true }),
          detector,
          stt,
          speaker: new Speaker({ tts, output: new NullOutput(), bus: host.bus, sanitize: (t) => sanitizeForSpeech(t) }),
          conversation: host.newConversation(),
          bus: host.bus,
          checkTranscript: transcriptCheck(host.config),
          languages: ['en', 'it'],
          defaultLanguage: 'en',
          confirmation: noConfirmationChannel('bench'),
          sentenceLanguage: sentenceLanguagePicker(['en', 'it']),
        });
        const [result] = await session.answerAll('file', options.signal);
        stop();
        if (!result?.outcome) throw new Error(`${clip.name}: no turn (${result?.dropped ?? 'no utterance'})`);
        // Frame n of a real-time input arrives (n + 1) x 20 ms after listening began.
        const started = events.find((e) => e.type === 'voice.listening')?.atMs ?? 0;
        const speechEnd = events.find((e) => e.type === 'voice.speech' && e.phase === 'end');
        const audioEnd = started + ((speechEnd?.type === 'voice.speech' ? speechEnd.frame : 0) + 1) * 20;
        const at = (type: AssistantEvent['type']): number | undefined => events.find((e) => e.type === type)?.atMs;
        stages.vad_end?.push(result.timings.speechEndMs - audioEnd);
        stages.stt_final?.push(result.timings.sttFinalMs - audioEnd);
        stages.llm_first_token?.push((at('llm.first_token') ?? Number.NaN) - audioEnd);
        stages.llm_first_sentence?.push((at('llm.sentence') ?? Number.NaN) - audioEnd);
        stages.first_audio?.push((result.timings.firstAudioMs ?? Number.NaN) - audioEnd);
      }
    }
  } finally {
    await Promise.allSettled([stt.close(), tts.close(), detector.close()]);
    await host.close();
    await llm.close();
    await rm(root, { recursive: true, force: true });
  }
  const figures: Figures = { turns: (stages.vad_end ?? []).length, silence_ms: host.config.vad.silence_ms };
  for (const [name, samples] of Object.entries(stages)) Object.assign(figures, distribution(`${name}_after_speech`, samples));
  return figures;
}
