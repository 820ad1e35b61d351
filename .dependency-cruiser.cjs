// The boundaries of src/ (docs/architecture.md), checked by `npm run check`:
// - no import cycle anywhere, type-only imports included;
// - lib/ is the bottom layer; db/ and the http/ toolkit never import a feature module;
// - a module imports another only through its index.ts;
// - of the modules of webhooks, a lower one never imports a higher one;
// - only the composition root (src/app.ts, src/modules.ts, src/server.ts, src/schema.ts, src/main.ts) and
//   the CLI put modules together;
// - a module split along its seams (issue 43) keeps its direction: the owner of the tables below the modules
//   whose routes write them through it (oauth below oauth-authorize, oauth-token, oauth-introspect; identity
//   below second-factors).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'An import cycle: the modules involved cannot be understood, loaded or tested one at a time.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lib-is-the-bottom',
      severity: 'error',
      comment: 'src/lib holds primitives that know nothing of the database, HTTP, modules or composition.',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'src/db knows the database, not the features: only the composed DB type (src/schema.ts).',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: ['^src/db/', '^src/lib/', '^src/schema\\.ts$', '^src/config\\.ts$'] },
    },
    {
      name: 'http-toolkit-below-modules',
      severity: 'error',
      comment: 'src/http is the toolkit that modules import; it never imports a module or the composition.',
      from: { path: '^src/http/' },
      to: {
        path: '^src/',
        pathNot: ['^src/http/', '^src/lib/', '^src/db/', '^src/context\\.ts$', '^src/config\\.ts$'],
      },
    },
    {
      name: 'modules-through-index',
      severity: 'error',
      comment: "A module reaches another only through that module's index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'],
      },
    },
    // The modules of webhooks import one another in one direction (docs/architecture.md): webhooks
    // (subscriptions) <- outbox <- delivery <- retention, replays, attempts <- dev-loop. What a lower one needs
    // of a higher one comes through deps or hooks that src/modules.ts supplies.
    {
      name: 'webhooks-below-their-engine',
      severity: 'error',
      comment:
        'The webhooks module (subscriptions) imports none of the rooms over it: they read webhooks through it.',
      from: { path: '^src/modules/webhooks/' },
      to: { path: '^src/modules/(outbox|delivery|retention|replays|attempts|dev-loop)/' },
    },
    {
      name: 'outbox-below-delivery',
      severity: 'error',
      comment:
        'The outbox records events and their deliveries; it imports neither the delivery engine nor the rooms over it.',
      from: { path: '^src/modules/outbox/' },
      to: { path: '^src/modules/(delivery|retention|replays|attempts|dev-loop)/' },
    },
    {
      name: 'delivery-below-its-rooms',
      severity: 'error',
      comment:
        'The delivery engine never imports the rooms built over its rows: retention, replays, attempts, dev-loop.',
      from: { path: '^src/modules/delivery/' },
      to: { path: '^src/modules/(retention|replays|attempts|dev-loop)/' },
    },
    {
      name: 'rooms-beside-one-another',
      severity: 'error',
      comment:
        'Retention, replays and attempts each stand on delivery alone: none imports another, nor dev-loop over them.',
      from: { path: '^src/modules/(retention|replays|attempts)/' },
      to: { path: '^src/modules/(retention|replays|attempts|dev-loop)/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'oauth-below-its-endpoints',
      severity: 'error',
      comment:
        'The oauth module (grants, codes, tokens and their SQL) knows nothing of the protocol endpoints built over it: oauth-authorize, oauth-token and oauth-introspect write through its index.ts.',
      from: { path: '^src/modules/oauth/' },
      to: { path: '^src/modules/oauth-(authorize|token|introspect)/' },
    },
    {
      name: 'identity-below-second-factors',
      severity: 'error',
      comment:
        'The identity module (users, sessions, factors and their checks) knows nothing of the second-factors routes, which call its services.',
      from: { path: '^src/modules/identity/' },
      to: { path: '^src/modules/second-factors/' },
    },
    {
      name: 'modules-below-composition',
      severity: 'error',
      comment: 'Modules do not reach up into the composition root.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app|modules|server|main)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle through types is still a cycle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
