/** The endpointer over whole inputs: an AudioInput's frames, or samples already in memory. */
import { FRAME_SAMPLES, type AudioFrame, type Vad } from '../../src/voice/types.js';
import { Endpointer, type EndpointerConfig, type EndpointerEvent, type SpeechEndEvent } from '../../src/voice/vad/index.js';

/** Events as the frames arrive, then those of the end of the input. */
export async function* endpointFrames(frames: AsyncIterable<AudioFrame>, endpointer: Endpointer): AsyncIterable<EndpointerEvent> {
  for await (const frame of frames) yield* await endpointer.push(frame.samples);
  yield* await endpointer.flush();
}

/** Every utterance in `samples` (16 kHz mono), fed as 20 ms frames like live capture. */
export async function findUtterances(samples: Int16Array, vad: Vad, config: Partial<EndpointerConfig> = {}): Promise<SpeechEndEvent[]> {
  const endpointer = new Endpointer(vad, config);
  const utterances: SpeechEndEvent[] = [];
  const keep = (events: EndpointerEvent[]) => {
    for (const event of events) if (event.type === 'speech_end') utterances.push(event);
  };
  for (let from = 0; from < samples.length; from += FRAME_SAMPLES) keep(await endpointer.push(samples.subarray(from, from + FRAME_SAMPLES)));
  keep(await endpointer.flush());
  return utterances;
}
