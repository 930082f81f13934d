/**
 * The room, measured when the full-duplex voice starts (`[duplex]
 * calibrate`): the test chirp of measureRoomEcho before the microphone is
 * listened to, the echo's delay and level and the room's noise reported as
 * a `voice.room` event and in `GET /state`, with what they mean for barge-in.
 */
import type { AssistantBus } from '../../events/index.js';
import { isAppError, messageOf } from '../../errors/index.js';
import type { AudioInput, AudioOutput } from '../types.js';
import type { RoomReport } from '../host-ports.js';
import { measureRoomEcho, roomProblems } from './room-probe.js';


/** Longest the measurement may take (it plays 2.3 s); past it the voice starts without one. */
const CALIBRATION_TIMEOUT_MS = 10_000;

/** Measures the room on the voice's own devices; a failed measurement is an error event, and the voice starts anyway. */
export async function calibrateRoom(input: AudioInput, output: AudioOutput, bus: AssistantBus): Promise<RoomReport | undefined> {
  try {
    const echo = await measureRoomEcho({ input, output, signal: AbortSignal.timeout(CALIBRATION_TIMEOUT_MS) });
    const report: RoomReport = { ...echo, problems: roomProblems(echo) };
    bus.emit({ type: 'voice.room', stage: 'voice', atMs: Date.now(), ...report });
    return report;
  } catch (error) {
    const why = isAppError(error) ? error.message : messageOf(error);
    bus.emit({ type: 'error', stage: 'voice', code: 'VOICE_ROOM_UNMEASURED', message: `the room could not be measured at start-up: ${why}`, recoverable: true, atMs: Date.now() });
    return undefined;
  }
}
