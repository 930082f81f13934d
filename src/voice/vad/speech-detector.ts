/**
 * The endpointer's state machine, pure and synchronous: VAD windows and their
 * probabilities in, transitions out, all positions in samples. No clock: the
 * same probabilities always give the same transitions.
 *
 *   idle --(p >= threshold)--> candidate --(voiced >= minSpeech)--> speech
 *   candidate --(silent >= endSilence)--> idle (a burst, never reported)
 *   speech --(silent >= endSilence)--> idle, reporting the end
 *
 * "Voiced" counts windows at or above the negative threshold, so a dip
 * between the thresholds neither ends speech nor stalls its confirmation.
 */

export interface DetectorSettings {
  threshold: number;
  negativeThreshold: number;
  minSpeechSamples: number;
  endSilenceSamples: number;
  /** Silence that ends confirmed speech (the endpointer may end it sooner); default endSilenceSamples. */
  speechEndSilenceSamples?: number;
}

export type DetectorState = 'idle' | 'candidate' | 'speech';

export class SpeechDetector {
  private current: DetectorState = 'idle';
  /** First sample of the window that started the candidate. */
  private onset = 0;
  /** End of the last voiced window. */
  private voicedEnd = 0;
  private voiced = 0;
  private silent = 0;

  constructor(private readonly settings: DetectorSettings) {}

  get state(): DetectorState {
    return this.current;
  }

  get onsetSample(): number {
    return this.onset;
  }

  get voicedEndSample(): number {
    return this.voicedEnd;
  }

  /** Silence since the last voiced window, in samples. */
  get silentSamples(): number {
    return this.silent;
  }

  /** Ends confirmed speech now, before the end silence ran out (the endpointer's early end); null when there is none. */
  endNow(): 'end' | null {
    if (this.current !== 'speech') return null;
    this.current = 'idle';
    return 'end';
  }

  /** One VAD window; 'start' when speech is confirmed, 'end' when it is over. */
  step(start: number, length: number, probability: number): 'start' | 'end' | null {
    const { threshold, negativeThreshold, minSpeechSamples, endSilenceSamples } = this.settings;
    if (this.current === 'idle') {
      if (probability < threshold) return null;
      this.current = 'candidate';
      this.onset = start;
      this.voiced = 0;
      this.silent = 0;
    }
    if (probability >= negativeThreshold) {
      this.voiced += length;
      this.silent = 0;
      this.voicedEnd = start + length;
    } else {
      this.silent += length;
    }
    if (this.current === 'candidate') {
      if (this.voiced >= minSpeechSamples) {
        this.current = 'speech';
        return 'start';
      }
      if (this.silent >= endSilenceSamples) this.current = 'idle';
      return null;
    }
    if (this.silent >= (this.settings.speechEndSilenceSamples ?? endSilenceSamples)) {
      this.current = 'idle';
      return 'end';
    }
    return null;
  }

  /** The input ended: 'end' if speech was under way (an unconfirmed candidate is dropped). */
  finish(): 'end' | null {
    const wasSpeech = this.current === 'speech';
    this.current = 'idle';
    return wasSpeech ? 'end' : null;
  }

  reset(): void {
    this.current = 'idle';
    this.onset = 0;
    this.voicedEnd = 0;
    this.voiced = 0;
    this.silent = 0;
  }
}
