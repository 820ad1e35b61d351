import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// No module-level mutable state in src/ (issue 11): state belongs to what a module's `create` makes, passed
// explicitly. Constant lookup tables are typed ReadonlyMap/ReadonlySet, which the compiler keeps constant;
// the few process-wide exceptions say why where they stand.
const moduleState = [
  {
    selector:
      'Program > VariableDeclaration[kind="let"], Program > ExportNamedDeclaration > VariableDeclaration[kind="let"]',
    message: 'Module-level mutable state: keep it in the state a module creates, and pass it.',
  },
  {
    selector:
      ':matches(Program > VariableDeclaration, Program > ExportNamedDeclaration > VariableDeclaration) > VariableDeclarator:not([id.typeAnnotation.typeAnnotation.typeName.name=/^Readonly(Map|Set)$/]) > NewExpression.init[callee.name=/^(Map|Set|WeakMap|WeakSet)$/]',
    message:
      'A module-level Map/Set/WeakMap is hidden state: keep it in the state a module creates, or type a constant table ReadonlyMap/ReadonlySet.',
  },
];

// One clock (issue 26): every decision about time (expiries, budgets, leases, schedules, purges) reads
// `ctx.clock.now()` (src/lib/time.ts), which a test moves instead of sleeping. Intervals measured for
// timers and durations use `performance.now()`.
const oneClock = [
  {
    selector: "MemberExpression[object.name='Date'][property.name='now']",
    message: 'Take the time from the clock: ctx.clock.now() (src/lib/time.ts).',
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0], CallExpression[callee.name='Date']",
    message: 'Take the time from the clock: new Date(ctx.clock.now()) (src/lib/time.ts).',
  },
];

// A fixed sleep: a promise that a timer resolves, `new Promise((r) => setTimeout(r, ms))` or
// `setTimeout(() => r(), ms)` inside it. (A timer that does something else, a kill after a grace period,
// is not one.)
const noSleep = [
  {
    selector: [
      "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
      "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.body.type='CallExpression'][arguments.0.body.arguments.length=0]",
    ].join(', '),
    message: 'A fixed sleep: poll for the condition with eventually(), or move the service clock.',
  },
];

// Small files and small functions (issue 43): no file of src/ over 400 lines but data (the event payload
// schemas and their examples), and no function over 120 lines but a route plugin's list of routes. Counted as
// `wc -l` counts, blank lines and comments included. A route plugin is a function that registers routes as
// statements of its own body (`app.get(path, …)`, `app.post(…)`, `app.route(…)`), or returns such a function
// (`(state) => async (plugin) => {…}`); a long handler inside one is still a function of its own, and counted.
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);

function isRoutePlugin(fn) {
  if (fn.body.type === 'ArrowFunctionExpression' || fn.body.type === 'FunctionExpression') {
    return isRoutePlugin(fn.body);
  }
  if (fn.body.type !== 'BlockStatement') return false;
  return fn.body.body.some(
    (st) =>
      st.type === 'ExpressionStatement' &&
      st.expression.type === 'CallExpression' &&
      st.expression.callee.type === 'MemberExpression' &&
      st.expression.callee.property.type === 'Identifier' &&
      ROUTE_METHODS.has(st.expression.callee.property.name) &&
      st.expression.arguments.length >= (st.expression.callee.property.name === 'route' ? 1 : 2),
  );
}

const sizes = {
  rules: {
    'max-function-lines': {
      meta: {
        type: 'suggestion',
        docs: {
          description: `No function over ${MAX_FUNCTION_LINES} lines but a route plugin's list of routes.`,
        },
        schema: [],
      },
      create(context) {
        const check = (fn) => {
          const lines = fn.loc.end.line - fn.loc.start.line + 1;
          if (lines <= MAX_FUNCTION_LINES || isRoutePlugin(fn)) return;
          context.report({
            node: fn,
            message: `A function of ${lines} lines, over ${MAX_FUNCTION_LINES} (issue 43): split it into named steps.`,
          });
        };
        return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'clients/typescript/src/schema.d.ts',
      'clients/typescript/dist',
      'web/dist',
      '.svc-data',
      'bench/results',
      'test-results',
      'eslint.config.js',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify plugins and hooks are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // No module-level mutable state in src/ (issue 11), and one clock (issue 26): the selectors above.
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...moduleState, ...oneClock] },
  },
  {
    // Small files and small functions (issue 43): the limits above.
    files: ['src/**/*.ts'],
    plugins: { sizes },
    rules: {
      'max-lines': ['error', { max: MAX_FILE_LINES, skipBlankLines: false, skipComments: false }],
      'sizes/max-function-lines': 'error',
    },
  },
  {
    // Data, not code: every event type's payload schema and its example, one after another.
    files: ['src/modules/events/event-payloads.ts'],
    rules: { 'max-lines': 'off' },
  },
  {
    // The command-line entry points take the time from the clock too.
    files: ['bin/**'],
    rules: { 'no-restricted-syntax': ['error', ...oneClock] },
  },
  {
    // One reader of the environment: src/config.ts parses it once into the typed, frozen Config (and the
    // CLI's settings); everything else is handed what it needs (docs/architecture.md).
    files: ['src/**/*.ts', 'bin/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read settings through src/config.ts (loadConfig, loadCliConfig), the one reader of process.env.',
        },
      ],
    },
  },
  {
    files: ['src/config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The clock itself is the one place that reads the system's time.
    files: ['src/lib/time.ts'],
    rules: { 'no-restricted-syntax': ['error', ...moduleState] },
  },
  {
    // No fixed sleeps in tests (issue 26): a test waits for a condition (test/support/eventually.ts) or
    // moves its service's clock (test/support/clock.ts). An exception says why, inline.
    files: ['test/**'],
    rules: {
      'no-restricted-syntax': ['error', ...noSleep],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:timers/promises',
              message: 'A fixed sleep: poll with eventually(), or move the clock.',
            },
            { name: 'timers/promises', message: 'A fixed sleep: poll with eventually(), or move the clock.' },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON answers (`any` by nature) and assert on them.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
