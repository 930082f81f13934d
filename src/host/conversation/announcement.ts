import type { RoutedTool } from '../router/index.js';

/**
 * Something to hear while a slow tool runs, since there is no screen: a
 * phrase of the first called tool that has one for the question's language.
 */
export function pickAnnouncement(
  calledNames: readonly string[],
  tools: readonly RoutedTool[],
  language: string,
  random: () => number = Math.random,
): { tool: string; text: string } | undefined {
  for (const name of calledNames) {
    const phrases = tools.find((t) => t.name === name)?.announce[language];
    if (phrases && phrases.length > 0) return { tool: name, text: phrases[Math.floor(random() * phrases.length)] ?? phrases[0]! };
  }
  return undefined;
}
