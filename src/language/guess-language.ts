/**
 * A guess at the language of a text: a typed question (for the announcement
 * phrase; spoken turns get the language from speech recognition instead) or
 * a sentence of a reply (for its voice). Common short words decide; a tie
 * goes to the first candidate. Shared by the host and the voice.
 */
const COMMON_WORDS: Record<string, readonly string[]> = {
  en: ['the', 'is', 'what', 'how', 'are', 'you', 'and', 'in', 'of', 'to', 'it', 'do', 'my', 'will', 'be', 'weather', 'time', 'today', 'tomorrow', 'search'],
  it: ['il', 'lo', 'la', 'che', 'è', 'e', 'di', 'come', 'cosa', 'sono', 'quanto', 'domani', 'oggi', 'tempo', 'ore', 'mi', 'un', 'una', 'per', 'non', 'ho', 'cerca'],
  de: ['der', 'die', 'das', 'ist', 'und', 'wie', 'was', 'ich', 'nicht', 'morgen', 'heute', 'wetter'],
  fr: ['le', 'la', 'les', 'est', 'et', 'quel', 'quelle', 'je', 'pas', 'demain', 'aujourd', 'temps'],
  es: ['el', 'la', 'los', 'es', 'y', 'qué', 'que', 'cómo', 'mañana', 'hoy', 'tiempo', 'no'],
};

export function guessLanguage(text: string, candidates: readonly string[], fallback = candidates[0] ?? 'en'): string {
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  let best = fallback;
  let bestScore = 0;
  for (const lang of candidates) {
    const common = new Set(COMMON_WORDS[lang] ?? []);
    const score = words.filter((w) => common.has(w)).length;
    if (score > bestScore) {
      best = lang;
      bestScore = score;
    }
  }
  return best;
}
