// The pure policy core: one import point for the rooms above it.
export * from './result.js';
export * from './path.js';
export * from './glob.js';
export * from './branch.js';
export * from './perimeter.js';
export * from './scope.js';
export * from './binding.js';
export * from './verdict.js';
export * from './model.js';
export * from './filter.js';
export * from './prefixes.js';
export * from './privacy.js';
export * from './protected.js';
export * from './secrets.js';
export * from './binary.js';
export * from './changeset.js';
export * from './secret-bytes.js';
