// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // console/api-types.ts is generated (npm run openapi:types) and checked by its stale test.
  { ignores: ['node_modules/', 'deploy/', '.cache/', 'dist/', 'console/api-types.ts'] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      // `const { secret: _, ...rest } = x` is how a field is dropped from a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, varsIgnorePattern: '^_', argsIgnorePattern: '^_' },
      ],
      // Layering (ARCHITECTURE.md): product code never imports the emulator; openstack/ knows nothing above it.
      'no-restricted-imports': 'off',
      // One import statement per module (a type-only one beside it is allowed: `import type` says it loads nothing).
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
    },
  },
  {
    files: ['src/openstack/**/*.ts', 'src/util/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/region/**', '**/keystone/**', '**/kube/**', '**/runtime/**', '**/cli/**', '**/emulator/**'],
              message: 'openstack/ and util/ sit at the bottom: they import nothing above them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts'],
    rules: {
      // node:test's describe/it return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': 'off',
    },
  },
  {
    files: ['console/**/*.tsx'],
    rules: {
      // An event handler's arrow body is a call for its effect: `onInput={(e) => setName(e.currentTarget.value)}`.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
