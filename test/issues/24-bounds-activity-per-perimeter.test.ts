// Bounds review, item 3: presence notes were capped at 1000 per repository across perimeters, so one perimeter's
// writes pushed every other perimeter's notes out (and the other perimeter could see its own notes vanish, a channel
// about activity it may not see). The cap is now per repository and perimeter, and at least twice the perimeter's
// hourly write budget, so a perimeter within its budget never loses a note. Both adapters: the in-memory one and a
// real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_MAX_PER_PERIMETER, activityKeep } from '../../src/core/index.js';
import { memoryPresence } from '../../src/state/file/index.js';
import { openPostgresState } from '../../src/state/postgres/index.js';
import type { PresenceStore } from '../../src/state/presence.js';
import type { SharedState } from '../../src/state/types.js';
import { sharedPostgres, type SharedPostgres } from '../support/shared-postgres.js';

let db: SharedPostgres;
let state: SharedState;

beforeAll(async () => {
  db = await sharedPostgres();
  const url = await db.database('bounds_activity');
  const opened = await openPostgresState({ url, instance: { id: 'test', version: 't' }, log: () => undefined });
  if (!opened.ok) throw new Error(opened.message);
  state = opened.value;
}, 60_000);
afterAll(async () => {
  await state?.close();
  await db?.destroy();
});

const adapters: [string, () => PresenceStore][] = [
  ['memory', () => memoryPresence()],
  ['postgres', () => state.presence!],
];

describe.each(adapters)('presence notes are capped per perimeter (%s)', (_name, open) => {
  it("one perimeter's flood of writes leaves another perimeter's notes in place, and stays bounded", async () => {
    const p = open();
    const repo = `/repos/${_name}`;
    await p.note({ kind: 'wrote', perimeter: 'quietbbb', agent: 'bob', repo, branch: 'main', paths: ['b/one.md'] });
    await p.note({ kind: 'seen', perimeter: 'quietbbb', agent: 'bob', repo, branch: 'main', paths: [] });
    const flood = ACTIVITY_MAX_PER_PERIMETER + 25;
    for (let i = 0; i < flood; i++)
      await p.note({ kind: 'wrote', perimeter: 'floodera', agent: 'al', repo, branch: 'main', paths: [`a/${i}.md`] });
    const notes = await p.recent(repo, 'main', 15 * 60_000);
    const quiet = notes.filter((n) => n.perimeter === 'quietbbb');
    expect(quiet.map((n) => n.kind).sort()).toEqual(['seen', 'wrote']);
    const loud = notes.filter((n) => n.perimeter === 'floodera');
    // The flooder keeps its newest notes, up to the cap: the oldest of its own went.
    expect(loud).toHaveLength(ACTIVITY_MAX_PER_PERIMETER);
    expect(loud[0]?.paths).toEqual([`a/${flood - 1}.md`]);
    expect(loud.some((n) => n.paths[0] === 'a/0.md')).toBe(false);
  }, 120_000);

  it('a perimeter within its write budget loses none of its notes: its visible ones never go early (review)', async () => {
    const p = open();
    const repo = `/repos/${_name}/budget`;
    // A budget of 700 commits an hour keeps 1,400 notes: a writer that spends all of it and more than the old fixed
    // cap of 1,000 still shows its first, visible note; other perimeters could count hidden writes by its loss.
    const keep = activityKeep(700);
    expect(keep).toBe(1400);
    const note = (path: string) =>
      p.note({ kind: 'wrote', perimeter: 'busyccc', agent: 'cy', repo, branch: 'main', paths: [path], keep });
    await note('visible/first.md');
    for (let i = 0; i < 1200; i++) await note(`hidden/${i}.md`);
    const notes = (await p.recent(repo, 'main', 15 * 60_000)).filter((n) => n.perimeter === 'busyccc');
    expect(notes).toHaveLength(1201);
    expect(notes.at(-1)?.paths).toEqual(['visible/first.md']);
    // The budget is the operator's: it never reaches a reader of the notes.
    expect(notes.every((n) => !('keep' in n))).toBe(true);
  }, 120_000);
});
