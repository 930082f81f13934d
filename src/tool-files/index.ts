export {
  PARAM_TYPES,
  RISK_LEVELS,
  TOOL_NAME_PATTERN,
  parseToolFile,
  toolFileSchema,
  type Risk,
  type ToolDefinition,
  type ToolFile,
  type ToolFileResult,
} from './definition.js';
export { loadToolDir, loadToolFiles, readToolFile, toolFilesIn, type ToolSet } from './load.js';
export { parameterValues, renderArgv, resolveProgram } from './argv.js';
export { MAX_OUTPUT_CHARS, runToolFile, truncate, type RunToolOptions, type ToolRunResult } from './run.js';
export { toMcpTool } from './mcp-tool.js';
