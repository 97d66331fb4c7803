// Result ids and urls of the `search`/`fetch` aliases. An id is sealed to one agent perimeter, repository and branch
// (like a change cursor) and names one path; it is deterministic, so the same readable file always gets the same id
// and an answer stays a function of what the agent may read. A url never names the server's machine or the
// repository's location: `git-blinder://<perimeter>/<branch>/<path>`, each part percent-encoded.
import * as z from 'zod/v4';
import type { Binding } from '../core/index.js';
import type { CursorSeal } from './tool.js';

const Payload = z.strictObject({
  v: z.literal(1),
  who: z.string(),
  repo: z.string(),
  branch: z.string(),
  path: z.string().min(1),
});

/** Where an id may be used: the agent perimeter, repository and branch of the binding (none on the operator surface). */
function placeOf(binding: Binding): { who: string; repo: string; branch: string } | undefined {
  return binding.surface === 'agent'
    ? { who: `agent:${binding.perimeterId}`, repo: binding.repo, branch: binding.branch }
    : undefined;
}

/** The id of `path` on this binding, or undefined where ids cannot be made (no seal, the operator surface). */
export function resultId(binding: Binding, cursors: CursorSeal | undefined, path: string): string | undefined {
  const place = placeOf(binding);
  if (!place || !cursors) return undefined;
  return cursors.sealId(JSON.stringify({ v: 1, ...place, path }));
}

/** The path an id names on this binding; undefined for a forged, edited, foreign or malformed id. */
export function pathOfId(binding: Binding, cursors: CursorSeal | undefined, id: string): string | undefined {
  const place = placeOf(binding);
  const plain = place && cursors ? cursors.openId(id) : undefined;
  if (plain === undefined || !place) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(plain);
  } catch {
    return undefined;
  }
  const p = Payload.safeParse(parsed);
  if (!p.success || p.data.who !== place.who || p.data.repo !== place.repo || p.data.branch !== place.branch)
    return undefined;
  return p.data.path;
}

/** The opaque url of `path`: perimeter, branch and path only, percent-encoded segment by segment. */
export function resultUrl(binding: Binding, path: string): string {
  const place = placeOf(binding);
  const who = place ? encodeURIComponent(place.who.slice('agent:'.length)) : 'root';
  const branch = encodeURIComponent(place?.branch ?? '');
  return `git-blinder://${who}/${branch}/${path.split('/').map(encodeURIComponent).join('/')}`;
}
