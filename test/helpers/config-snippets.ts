/** Config lines that turn the built-in adapters off, for tests about something else. */
export const NO_ADAPTERS = '[adapters.shell_readonly]\nenabled = false\n[adapters.browser]\nenabled = false\n';
