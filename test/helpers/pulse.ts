/** The private PulseAudio server lives with the benchmarks, which use it too. */
export * from '../../bench/pulse-server.js';
