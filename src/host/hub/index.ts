export { McpHub, type McpHubOptions } from './hub.js';
export { TOOL_NAME_MAX, TOOL_NAME_PATTERN, assignToolNames, sanitizeToolName, type NamedToolRef, type ToolRef } from './naming.js';
export { DEFAULT_RESTART_POLICY, restartDelayMs, type RestartPolicy } from './restart-policy.js';
export { DEFAULT_STOP_TIMINGS, type StopTimings } from './process-transport.js';
export { commandLine } from './server-supervisor.js';
export { MEMORY_SERVER_NAME, TOOLS_SERVER_NAME, builtinAdapterSpecs, builtinMemorySpecs, builtinServerPath, builtinToolsServerSpec, thirdPartyServerSpecs, toolsServerPath } from './specs.js';
export type { CallOptions, HubTool, ServerSpec, ServerState, ServerStatus, ToolHub } from './types.js';
