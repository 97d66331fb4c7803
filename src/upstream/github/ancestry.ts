// "Is this commit behind that one?" through compare (`ancestor...head` is `ahead` or `identical`), cached: two
// commit ids always give the same answer.
import { FULL_SHA, immutable, type Ctx, type RepoRef } from './context.js';
import { isHttpFailure } from './errors.js';

/** True when `ancestor` is `head` or one of its ancestors; unknown commits (404/422) are false. */
export function isAncestor(ctx: Ctx, r: RepoRef, ancestor: string, head: string): Promise<boolean> {
  if (!FULL_SHA.test(ancestor) || !FULL_SHA.test(head)) return Promise.resolve(false);
  if (ancestor.toLowerCase() === head.toLowerCase()) return Promise.resolve(true);
  return immutable(
    ctx,
    `ancestor:${r.key}:${ancestor}:${head}`,
    async () => {
      try {
        const res = await ctx.octokit.rest.repos.compareCommitsWithBasehead({
          owner: r.owner,
          repo: r.repo,
          basehead: `${ancestor}...${head}`,
          per_page: 1,
        });
        return res.data.status === 'ahead' || res.data.status === 'identical';
      } catch (err) {
        if (isHttpFailure(err) && (err.status === 404 || err.status === 422)) return false;
        throw err;
      }
    },
    () => 64,
  );
}
