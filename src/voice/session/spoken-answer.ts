/** A spoken answer to a yes/no question, in the languages the assistant speaks. */
export type SpokenAnswer = 'yes' | 'no';

const YES = [
  'yes', 'yeah', 'yep', 'sure', 'ok', 'okay', 'of course', 'go ahead', 'do it', 'confirm', 'please do', 'right',
  'si', 'sì', 'certo', 'va bene', 'vai', 'conferma', 'procedi', 'fallo', 'd accordo', 'daccordo',
];
const NO = [
  'no', 'nope', 'nah', 'don t', 'do not', 'cancel', 'stop', 'never', 'not now', 'negative',
  'annulla', 'non farlo', 'lascia stare', 'ferma', 'fermati', 'niente',
];

/**
 * Yes, no, or undefined when the words say neither (or both: "no, yes"
 * stays unanswered, and the router treats that as no). Matches whole words
 * and phrases only, after folding case, accents and punctuation.
 */
export function spokenAnswer(text: string): SpokenAnswer | undefined {
  const words = ` ${fold(text)} `;
  const has = (phrases: readonly string[]): boolean => phrases.some((p) => words.includes(` ${fold(p)} `));
  const yes = has(YES);
  const no = has(NO);
  if (yes === no) return undefined;
  return yes ? 'yes' : 'no';
}

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The question the voice asks before a tool call, in the question's language. */
export function confirmationPrompt(tool: string, reason: string | undefined, language: string): string {
  const name = tool.replace(/[_.-]+/g, ' ');
  if (language === 'it') return `Posso usare ${name}?${reason ? ' Salverebbe dati sensibili.' : ''} Rispondi sì o no.`;
  return `May I use ${name}?${reason ? ' It would store sensitive content.' : ''} Say yes or no.`;
}
