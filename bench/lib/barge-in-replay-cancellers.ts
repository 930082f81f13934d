/** The echo cancellers a barge-in replay runs each recording through: BARGE_IN_REPLAY_CANCELLERS=a,b (default legacy,aec3). */
import { ECHO_CANCELLERS, type EchoCanceller } from '../../src/voice/apm/index.js';

export function replayCancellers(list: string | undefined): readonly EchoCanceller[] {
  return (list ?? 'legacy,aec3').split(',').map((name) => {
    const found = ECHO_CANCELLERS.find((c) => c === name.trim());
    if (!found) throw new Error(`BARGE_IN_REPLAY_CANCELLERS: no echo canceller "${name}" (known: ${ECHO_CANCELLERS.join(', ')})`);
    return found;
  });
}
