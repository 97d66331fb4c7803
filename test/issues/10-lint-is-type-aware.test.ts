// Issue 10: lint claimed to be type-aware and was not. These probes prove the rules the architecture relies on fire:
// a switch over a closed union that misses a member (a `default` does not count), console/env/exit below src/cli,
// and minimatch outside src/core/glob.ts.
// The probes are real files in the tree for the moment they are linted: type-aware rules need the project to see them.
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function rulesFiring(filePath: string, code: string): Promise<string[]> {
  const ids = (r: ESLint.LintResult | undefined) => (r?.messages ?? []).map((m) => m.ruleId ?? `parse: ${m.message}`);
  // Never overwrite the real glob.ts: its text is linted under its name (import rules need no type information).
  if (filePath === 'src/core/glob.ts') return ids((await eslint.lintText(code, { filePath }))[0]);
  const name = join(dirname(filePath), `lint-probe-${process.pid}-${filePath.split('/').pop()}`);
  await writeFile(name, code);
  try {
    return ids((await eslint.lintFiles([name]))[0]);
  } finally {
    await rm(name, { force: true });
  }
}

const unionSwitch = `type V = { kind: 'allow' } | { kind: 'deny' } | { kind: 'propose' };
/** probe */
export function f(v: V): number {
  switch (v.kind) {
    case 'allow':
      return 1;
    case 'deny':
      return 2;
    default:
      return 3;
  }
}
`;

describe('issue 10: lint enforces the architecture', () => {
  it('a union switch that does not name every member fails, even with a default', async () => {
    expect(await rulesFiring('src/mcp/probe-exhaustive.ts', unionSwitch)).toContain(
      '@typescript-eslint/switch-exhaustiveness-check',
    );
  }, 60_000);

  it('a union switch naming every member passes', async () => {
    const ok = unionSwitch.replace('    default:\n      return 3;', "    case 'propose':\n      return 3;");
    expect(await rulesFiring('src/mcp/probe-exhaustive.ts', ok)).toEqual([]);
  }, 60_000);

  it('console, process.env and process.exit are refused below src/cli and allowed in it', async () => {
    const code = `/** probe */\nexport function g(): void {\n  console.log(process.env['HOME']);\n  process.exit(1);\n}\n`;
    const below = await rulesFiring('src/registry/probe-env.ts', code);
    expect(below.filter((r) => r === 'no-restricted-syntax')).toHaveLength(3);
    expect(await rulesFiring('src/cli/probe-env.ts', code)).toEqual([]);
  }, 60_000);

  it('minimatch is imported only by src/core/glob.ts', async () => {
    const code = `import { minimatch } from 'minimatch';\n/** probe */\nexport const m = minimatch('a', 'a');\n`;
    expect(await rulesFiring('src/core/scope-probe.ts', code)).toContain('no-restricted-imports');
    expect(await rulesFiring('src/core/glob.ts', code)).not.toContain('no-restricted-imports');
  }, 60_000);
});
