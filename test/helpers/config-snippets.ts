/** Config lines that turn the built-in adapters and memory off: only the tool files' server starts, for tests about something else. */
export const ONLY_TOOL_FILES = '[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n[memory]\nenabled = false\n';
