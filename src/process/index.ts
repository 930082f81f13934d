export { runCommand, type CommandOutcome, type RunCommandOptions } from './run-command.js';
export { delay, groupAlive, pollUntil, signalGroup } from './process-group.js';
