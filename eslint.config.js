import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'web/dist/', 'test-artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', 'kysely', 'pg', 'better-sqlite3', '../storage/*', '../http/*', '../interfaces/*', '../identity/*'] }],
    },
  },
  {
    files: ['src/interfaces/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['kysely', 'pg', 'better-sqlite3', '**/storage/dialects/*'] }],
    },
  },
  // The identity provider renders its own errors through route config: it takes nothing from the HTTP layer.
  {
    files: ['src/identity/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['kysely', 'pg', 'better-sqlite3', '**/storage/dialects/*', '../http/*'] }],
    },
  },
  // The HTTP layer is given what it needs of the store (versions, probes) by its callers.
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['kysely', 'pg', 'better-sqlite3', '../storage/*'] }],
    },
  },
);
