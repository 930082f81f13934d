/**
 * The reserved boundary for GUI control: clicks, keyboard, screen capture,
 * accessibility automation. No provider exists in this version, and a tool
 * that offers such control (a third-party "computer use" server) is not
 * offered to the model; a call to it is refused as unsupported. A future
 * provider implements this interface and brings its own confirmation and
 * audit rules.
 */
export interface ComputerControlProvider {
  click(target: { x: number; y: number; button?: 'left' | 'right' }, options: { signal?: AbortSignal }): Promise<void>;
  typeText(text: string, options: { signal?: AbortSignal }): Promise<void>;
  pressKeys(keys: string[], options: { signal?: AbortSignal }): Promise<void>;
  screenshot(options: { signal?: AbortSignal }): Promise<Uint8Array>;
}

/** Word parts of a tool name that mean direct control of the desktop. */
const GUI_CONTROL = /(^|[^a-z])(click|double_?click|right_?click|mouse|drag|key_?press|key_?down|key_?up|keyboard|hotkey|type_?text|send_?keys|screenshot|screen_?capture|capture_?screen|accessibility|computer(_?use)?|gui)([^a-z]|$)/i;

/** Why a tool counts as GUI control (and so is refused), or undefined. */
export function guiControlReason(toolName: string): string | undefined {
  const match = GUI_CONTROL.exec(toolName.replace(/([a-z])([A-Z])/g, '$1_$2'));
  if (!match) return undefined;
  return `${toolName} would control the desktop (${match[2]?.toLowerCase()}): GUI control (clicks, keyboard, screen, accessibility) is not supported in this version`;
}
