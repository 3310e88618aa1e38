import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.local/**',
      '.tools/**',
      'libs/proto/src/generated/**',
      'coverage/**',
      'reports/**',
    ],
  },
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../libs/*', '../../../libs/*'], message: 'Import @gateway/<lib> instead.' }] },
      ],
    },
  },
  { files: ['**/*.js', '**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    // The per-request path. On Node 20 (V8 11.3) an object literal that opens with a spread and then adds a field the
    // source lacks gets a hidden class of its own per object, which only a full collection frees: about 4x the cost
    // of Object.assign, and survivors in every scavenge (docs/benchmarks.md, "edge-auth's collector").
    files: [
      'libs/collections/src/**/*.ts',
      'libs/decisions/src/**/*.ts',
      'libs/proto/src/**/*.ts',
      'services/edge-auth/src/**/*.ts',
      'services/provider-proxy/src/grpc/**/*.ts',
      'services/provider-proxy/src/proxy/**/*.ts',
      'services/quota-actor/src/partition/**/*.ts',
    ],
    ignores: ['**/*.test.ts', '**/*.fixture.ts', '**/config.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression[properties.0.type='SpreadElement'][properties.1]",
          message:
            'A copy with fields added: use Object.assign({}, source, { field }) or spell the fields out ' +
            '(a spread first, then a new field, costs a hidden class per object on Node 20).',
        },
      ],
    },
  },
);
