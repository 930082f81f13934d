/**
 * What the always-open microphone hears, as the state machine's inputs:
 * each frame goes through the barge-in detector (echo cancelled against
 * what the speaker played, then scored by the VAD), the endpointer cuts
 * utterances from the same cleaned audio and scores, and an utterance is
 * reported only when the detector confirmed speech in it: echo residue and
 * coughs under a reply never reach speech recognition. A confirmed
 * utterance is recognized as it is spoken, from 300 ms before the run of
 * audio that confirmed it (so its first syllable is heard): partial
 * transcripts while it lasts, one final transcript after it ends, in
 * utterance order.
 */
import { isAppError, messageOf } from '../../errors/index.js';
import { clip, type AssistantBus } from '../../events/index.js';
import { concatSamples } from '../audio/index.js';
import { wordsVerdict, type TranscriptCheck } from '../session/index.js';
import { FRAME_MS, SAMPLE_RATE, type AudioFrame, type PartialTranscript, type RecognitionSession, type StreamingStt, type Transcript } from '../types.js';
import type { Endpointer, EndpointerEvent } from '../vad/index.js';
import type { BargeInDetector, BargeInSpeechStarted } from './barge-in-detector.js';
import type { ScoreReplayVad } from './score-replay-vad.js';
import type { DuplexInput } from './states.js';

export interface ListeningPipelineOptions {
  detector: BargeInDetector;
  /** Cuts utterances; its VAD is `scores`, fed by the detector. */
  endpointer: Endpointer;
  scores: ScoreReplayVad;
  stt: StreamingStt;
  checkTranscript: TranscriptCheck;
  /** Timers for engines that decode on one (the voice's, on the audio clock). */
  setTimer: (fire: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
  bus: AssistantBus;
  /** The clock of the frames' `atMs`. */
  clock: () => number;
  /** Time stamps and durations of bus events. */
  eventClock: () => number;
  dispatch: (input: DuplexInput) => void;
  /**
   * How far speech heard over playback is believed: 0 while the echo canceller warms up (no onset
   * counts), below 1 while the clocks drift apart (the barge-in rule wants surer speech), else 1.
   */
  confidenceScale: (duringPlayback: boolean) => number;
  /**
   * The words so far are only a backchannel ("mm-hm") said over a held reply: the utterance may
   * end after the short finished-sentence silence, so the reply goes on soon after it.
   */
  heldBackchannel?: (words: string) => boolean;
  /** The language recognition detected in the last final transcript. */
  onLanguage: (language: string | undefined) => void;
  /** Each partial transcript of confirmed speech. */
  onPartial?: (partial: PartialTranscript) => void;
  signal: AbortSignal;
}

/** Cleaned audio kept, so recognition of confirmed speech can start before the moment it was confirmed. */
const RECENT_MS = 2000;
/**
 * Recognition starts this long before the first window of the run that
 * confirmed the speech: the first syllable ("stop", "wait") is usually
 * quieter than the rest and went by before any rule was sure of it.
 */
const PRE_ROLL_MS = 300;

export class ListeningPipeline {
  /** The detector confirmed speech that has not ended yet: when it was reported. */
  private onsetAtMs: number | undefined;
  /** The endpointer is inside an utterance. */
  private inUtterance = false;
  /** The confirmed speech's recognition, fed every cleaned frame. */
  private recognition: RecognitionSession | undefined;
  /** The last RECENT_MS of cleaned audio, each frame with its audio time (ms). */
  private recent: Array<{ atMs: number; samples: Int16Array }> = [];
  private transcripts: Promise<void> = Promise.resolve();
  /** How long a confirmed onset may wait for the endpointer's utterance before it counts as over. */
  private readonly orphanMs: number;

  constructor(private readonly options: ListeningPipelineOptions) {
    this.orphanMs = options.endpointer.config.minSpeechMs + options.endpointer.config.endSilenceMs;
  }

  /** One microphone frame and the render audio that played while it was captured (null: none, nor its echo tail). */
  async frame(frame: AudioFrame, render: Int16Array | null): Promise<void> {
    const { detector, endpointer, scores } = this.options;
    const trust = this.options.confidenceScale(render !== null);
    const result = await detector.process(frame.samples, render, trust === 0 ? 1 : trust);
    scores.feed(result.windows.map((w) => w.probability));
    const events = await endpointer.push(result.cleaned);
    this.remember(result.atMs, result.cleaned);
    this.recognition?.push(result.cleaned);
    // Not to be believed at all (the echo canceller is still learning the room): not an utterance either.
    if (result.event && trust > 0) this.onOnset(result.event, frame.atMs + (result.event.startedAtMs - result.atMs));
    for (const event of events) this.onEndpointer(event);
    if (this.onsetAtMs !== undefined && !this.inUtterance && frame.atMs - this.onsetAtMs > this.orphanMs) {
      // Speech loud enough to interrupt that never grew into an utterance: no words.
      this.endSpeech();
      this.options.dispatch({ type: 'transcript_empty' });
    }
  }

  /** Waits for the transcripts under way (shutdown, tests). */
  async settled(): Promise<void> {
    await this.transcripts;
  }

  /** Forgets the utterance under way (after an audio error the stream starts afresh). */
  reset(): void {
    if (this.onsetAtMs !== undefined) {
      this.endSpeech();
      this.options.dispatch({ type: 'transcript_empty' });
    }
    this.inUtterance = false;
    this.recent = [];
    this.options.detector.reset();
    this.options.endpointer.reset();
  }

  close(): void {
    this.recognition?.cancel();
    this.recognition = undefined;
  }

  private onOnset(event: BargeInSpeechStarted, startedAtMs: number): void {
    if (this.onsetAtMs !== undefined) return;
    this.onsetAtMs = this.options.clock();
    this.options.bus.emit({ type: 'voice.speech', stage: 'vad', phase: 'start', frame: Math.floor(event.startedAtMs / FRAME_MS), rule: event.rule, atMs: this.options.eventClock() });
    // The rule decided; the state machine takes it as is.
    this.options.dispatch({ type: 'speech_started', startedAtMs });
    this.startRecognition(event.startedAtMs - PRE_ROLL_MS);
  }

  private onEndpointer(event: EndpointerEvent): void {
    if (event.type === 'speech_start') {
      this.inUtterance = true;
      return;
    }
    this.inUtterance = false;
    // Not confirmed by the detector: echo residue, or a cough under the reply.
    if (this.onsetAtMs === undefined) return;
    const durationMs = Math.round((event.samples.length / SAMPLE_RATE) * 1000);
    const { rule: endRule, silenceMs } = event;
    this.options.bus.emit({ type: 'voice.speech', stage: 'vad', phase: 'end', frame: event.endFrameIndex, durationMs, endRule, silenceMs, atMs: this.options.eventClock() });
    const recognition = this.recognition;
    this.recognition = undefined;
    this.endSpeech();
    if (recognition) this.transcribe(recognition);
  }

  private endSpeech(): void {
    this.onsetAtMs = undefined;
    this.recognition?.cancel();
    this.recognition = undefined;
    this.options.endpointer.setEndCheck(undefined);
    this.options.dispatch({ type: 'speech_ended' });
  }

  /**
   * Recognition of the strongly cleaned audio, whichever rule caught the speech: the less
   * suppressed one lets the assistant's own words through, and in the loopback bench they
   * came back as transcripts (false turns).
   */
  private startRecognition(fromAudioMs: number): void {
    const { stt, signal, bus, eventClock: clock, dispatch, setTimer, clearTimer } = this.options;
    const recognition = stt.startUtterance({ signal, timers: { set: setTimer, clear: clearTimer } });
    recognition.onPartial((partial) => {
      if (this.recognition !== recognition || partial.text.trim() === '') return;
      bus.emit({ type: 'voice.transcript', stage: 'stt', text: clip(partial.text), stable: clip(partial.stable), final: false, atMs: clock() });
      this.options.onPartial?.(partial);
      dispatch({ type: 'transcript_partial', text: partial.text });
    });
    recognition.push(this.audioSince(fromAudioMs));
    this.recognition = recognition;
    const { endpointer } = this.options;
    const holdMs = endpointer.config.sentenceEndSilenceMs;
    const { heldBackchannel } = this.options;
    endpointer.setEndCheck((silenceMs) => {
      const verdict = wordsVerdict(recognition, { holdMs, silenceMs });
      if (verdict === 'finished' || !heldBackchannel) return verdict;
      // Words the decoder has caught up with (as wordsVerdict wants) that are only a backchannel: nothing more to wait for.
      const words = recognition.hypothesis?.() ?? '';
      const caughtUp = (recognition.backlogMs?.() ?? 0) <= silenceMs;
      return caughtUp && heldBackchannel(words) ? 'finished' : verdict;
    });
  }

  /** Final transcripts in utterance order: the state machine pairs each with its utterance. */
  private transcribe(recognition: RecognitionSession): void {
    const { checkTranscript, bus, eventClock: clock, dispatch, signal } = this.options;
    const started = clock();
    // Finished now, so the decoder ends the utterance at once; reported in order below.
    const final = recognition.finish();
    // Awaited in order below, where its failure is reported; this only keeps it from being unhandled meanwhile.
    final.catch(() => undefined);
    this.transcripts = this.transcripts.then(async () => {
      let transcript: Transcript = { text: '', final: true };
      try {
        transcript = await final;
      } catch (error) {
        if (signal.aborted) return;
        bus.emit({ type: 'error', stage: 'stt', code: isAppError(error) ? error.code : 'STT_FAILED', message: messageOf(error), recoverable: true, atMs: clock() });
      }
      const dropped = checkTranscript(transcript);
      bus.emit({
        type: 'voice.transcript',
        stage: 'stt',
        text: clip(transcript.text),
        final: true,
        ...(transcript.language ? { language: transcript.language } : {}),
        ...(dropped ? { dropped } : {}),
        durationMs: clock() - started,
        atMs: clock(),
      });
      if (dropped) return dispatch({ type: 'transcript_empty' });
      this.options.onLanguage(transcript.language);
      dispatch({ type: 'transcript_final', text: transcript.text, ...(transcript.language ? { language: transcript.language } : {}) });
    });
  }

  private remember(atMs: number, samples: Int16Array): void {
    this.recent.push({ atMs, samples });
    if (this.recent.length > RECENT_MS / FRAME_MS) this.recent.shift();
  }

  /** The cleaned audio from the frame holding `audioMs` to now: what the speech's recognition hears first. */
  private audioSince(audioMs: number): Int16Array {
    const from = this.recent.findIndex((f) => f.atMs + FRAME_MS > audioMs);
    return concatSamples(this.recent.slice(from < 0 ? this.recent.length : from).map((f) => f.samples));
  }
}
