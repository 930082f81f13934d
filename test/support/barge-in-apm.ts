/** The APM settings of the barge-in path, shared by bench/echo.ts and the barge-in detector's tests. */
import type { WebRtcApmOptions } from '../../src/voice/apm/index.js';

/**
 * The APM the detector runs on: AEC with high non-linear suppression,
 * noise suppression moderate (the default), gain control off. Lower suppression ('low', 'moderate') lets AEC residue
 * through as false interruptions (29 and 10 in 50 echo-only trials); 'high'
 * gave none, at the cost of swallowing more of the double-talk onset.
 */
export const BARGE_IN_APM: WebRtcApmOptions = { echoSuppression: 'high', gainControl: false };

/**
 * The detector's double-talk path: the same APM with low suppression, whose
 * output keeps the onset of a voice over loud echo (and some echo, which the
 * detector's energy gate keeps from qualifying).
 */
export const DOUBLE_TALK_APM: WebRtcApmOptions = { echoSuppression: 'low', gainControl: false };
