/**
 * isomorphic-git and its Node HTTP client in one module: scripts/build.mjs bundles it as
 * dist/isomorphicGit.js, loaded only when a clone needs it (gitPorts.ts), so the extension and the
 * CLI bundles do not carry a git client that a machine with git never runs.
 */
export * as git from 'isomorphic-git';
export { default as http } from 'isomorphic-git/http/node';
