export { guessLanguage } from './guess-language.js';
