export { runCommand, type CommandOutcome, type RunCommandOptions } from './run-command.js';
