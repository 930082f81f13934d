export { allowListedEnv } from './env.js';
export { runCommand, type CommandOutcome, type RunCommandOptions } from './run-command.js';
export {
  PROCESS_SPAWN_FAILED,
  describeErrno,
  inOwnGroup,
  spawnInGroup,
  spawnPiped,
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
  type InGroupOptions,
  type PipedSpawn,
} from './spawn.js';
export { DEFAULT_STOP_TIMINGS, killGroupAtExit, stopGroup, terminateGroup, type StopOptions, type StopTimings } from './stop.js';
export { delay, groupAlive, pollUntil, processRuns, signalGroup } from './process-group.js';
