// ESLint: rules that catch mistakes (promises left floating or handed where a callback's result is
// ignored, unused names, loose equality), not style; Prettier owns the layout.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-*/', 'node_modules/', 'data/', 'bench/results/', 'test-output/'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // `({ created, ...rest }) => rest` leaves out a field on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always'],
      // Siphon's input checks match control characters on purpose (labels, names, log text).
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', 'bin/siphon'],
    languageOptions: { globals: globals.node },
    rules: { eqeqeq: ['error', 'always'] },
  },
);
