// oidc-provider ships no types; the benchmark's baseline uses a handful of its calls.
declare module 'oidc-provider';
