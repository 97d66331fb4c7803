// Perimeter shapes that are valid but almost always a mistake. The operator is warned, never refused: each of these
// can be meant (a literal "[" in a file name, a deliberate write-only drop folder).
import { compileGlobs, expandBraces } from '../core/index.js';
import { ALL_TOOLS } from '../registry/index.js';

/** The parts of a perimeter spec the warnings look at. */
export interface WarnedSpec {
  readonly id: string;
  readonly read?: readonly string[] | undefined;
  readonly write?: readonly string[] | undefined;
  readonly tools?: readonly string[] | undefined;
}

// An unclosed `[` or `{` is matched literally, and `[]` / `[!]` match no character: the glob matches nothing the
// operator meant.
function globProblem(glob: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) return 'has an unclosed "[", so it only matches a file literally named with "["';
      const inner = glob.slice(i + 1, close);
      if (inner === '' || inner === '!' || inner === '^')
        return `has an empty character class "[${inner}]", which matches no file`;
      i = close;
    } else if (ch === '{') depth++;
    else if (ch === '}') depth--;
  }
  return depth > 0 ? 'has an unclosed "{", so it only matches a file literally named with "{"' : undefined;
}

// One concrete path a glob matches, with every wildcard replaced by a plain name: good enough to ask "is a file
// this glob writes readable?" without solving glob containment.
function sampleOf(glob: string): string {
  return glob
    .replace(/\[!?\^?([^\]])[^\]]*\]/g, '$1')
    .split('/')
    .map((s) => (s === '**' ? 'x' : s.replace(/[*?]+/g, 'x')))
    .join('/');
}

/** Warnings for one perimeter spec, each a sentence naming the perimeter and what to do. */
export function perimeterWarnings(spec: WarnedSpec): string[] {
  const out: string[] = [];
  const read = spec.read ?? [];
  const write = spec.write ?? [];
  if (read.length === 0) {
    out.push(
      `perimeter ${spec.id}: read is empty, so the perimeter can read nothing (its agents see an empty tree and every ` +
        "path answers as missing). Give read globs: --read 'docs/**' (repeatable), or read: [...] in a config.",
    );
  }
  for (const [field, globs] of [
    ['read', read],
    ['write', write],
  ] as const) {
    for (const g of globs) {
      const problem = globProblem(g);
      if (problem) out.push(`perimeter ${spec.id}: ${field} glob "${g}" ${problem}.`);
    }
  }
  const readable = compileGlobs(read);
  const blind = write.filter((g) => expandBraces(g).some((alt) => !readable.matches(sampleOf(alt))));
  if (blind.length > 0) {
    out.push(
      `perimeter ${spec.id}: write ${blind.map((g) => `"${g}"`).join(', ')} reaches outside read: an agent can create or ` +
        'overwrite files there that it cannot see (a blind write), without knowing what it replaces. Add the same ' +
        'globs to read unless a write-only folder is what you want.',
    );
  }
  for (const t of spec.tools ?? []) {
    const tool = ALL_TOOLS.find((x) => x.name === t);
    if (tool && !tool.surfaces.includes('agent')) {
      out.push(
        `perimeter ${spec.id}: tool "${t}" is never served to agents (operator surface only); listing it in tools has no effect.`,
      );
    }
  }
  return out;
}
