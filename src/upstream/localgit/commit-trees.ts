// What a full object id peels to — its commit and that commit's root tree — kept by id. Objects never change (replace
// objects are off, and a grafts or shallow file changes parents, never trees), so a kept pair is exact for as long as
// it is kept: a branch head read once needs no round trip to be checked as a commit and none to find its tree.
// Bounded (oldest first out); the pairs are facts about objects, not answers, like the tree cache beside them.
import { createLru, type Lru } from './lru.js';

/** A full id's commit and root tree. */
export interface CommitTree {
  readonly commit: string;
  readonly tree: string;
}

export type CommitTrees = Lru<CommitTree>;

/** Creates a cache of at most `max` ids. */
export function createCommitTrees(max = 4096): CommitTrees {
  return createLru<CommitTree>(max);
}
