// Lint for one thing only: promises. A promise nobody awaits loses its
// failure without a word, and a promise handed where a plain function is
// expected (an event listener, a forEach callback) is never awaited at all.
// Type checking and style belong to tsc and review; these rules need the
// types, so the linter reads tsconfig.json's project.
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'native/', 'web/', 'examples/', 'scripts/', '*.config.*'] },
  {
    files: ['src/**/*.ts', 'mcp-servers/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)) },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
