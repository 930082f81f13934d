/**
 * Where a known sound lies in a recording: the lag of best normalized
 * correlation, found on every 4th lag and sample, then refined at full
 * rate around the best coarse one (16 times less work than a full search;
 * a real match is broad enough at 16 kHz for the coarse step to land on it).
 */
export function bestMatch(samples: Int16Array, template: Int16Array): { at: number; score: number } | undefined {
  const lags = samples.length - template.length;
  if (lags < 0) return undefined;
  const scoreAt = (lag: number, step: number): number => {
    let dot = 0;
    let energy = 0;
    let own = 0;
    for (let i = 0; i < template.length; i += step) {
      const m = samples[lag + i]!;
      dot += m * template[i]!;
      energy += m * m;
      own += template[i]! * template[i]!;
    }
    return dot / Math.sqrt(energy * own + 1);
  };
  let coarse = { at: 0, score: -1 };
  for (let lag = 0; lag <= lags; lag += 4) {
    const score = scoreAt(lag, 4);
    if (score > coarse.score) coarse = { at: lag, score };
  }
  let best = { at: coarse.at, score: -1 };
  for (let lag = Math.max(0, coarse.at - 8); lag <= Math.min(lags, coarse.at + 8); lag++) {
    const score = scoreAt(lag, 1);
    if (score > best.score) best = { at: lag, score };
  }
  return best;
}
