import type { RecognitionOptions, StreamingStt, Transcript } from '../../src/voice/types.js';

/** The final transcript of audio that is all there already (a recorded answer, a file). */
export function transcribeWhole(stt: StreamingStt, samples: Int16Array, options: RecognitionOptions = {}): Promise<Transcript> {
  const session = stt.startUtterance(options);
  session.push(samples);
  return session.finish();
}
