/** Numerical Recipes' LCG in [0, 1): the same sequence for the same seed, for noise and trial sets that compare run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
