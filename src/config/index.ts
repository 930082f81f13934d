export { asWritten, Duration, seconds } from './duration.js';
export { configSchema, DEFAULT_SERVER_TIMEOUT, defaultConfig, isPlainTable, voiceLanguages, type AdaptersConfig, type Config, type DuplexSettings, type McpServerConfig, type MemoryConfig, type RouterConfig, type VoiceConfig } from './schema.js';
export { CONFIG_FILE, loadConfig, readConfig, validateConfig, type ConfigResult } from './load.js';
export { describeIssues } from './describe-issues.js';
export { decodeUtf8, parseToml, readTomlFile, type TomlRead } from './toml-file.js';
export { configDir, dataDir, expandHome } from './paths.js';
export { assistantMode, type AssistantMode } from './mode.js';
