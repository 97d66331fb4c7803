// The agent trailer and author form (issue 23).
import { describe, expect, it } from 'vitest';
import { agentAuthor, withAgentTrailer } from '../../src/core/index.js';

describe('withAgentTrailer', () => {
  it('opens a trailer block, or joins the proposal trailer', () => {
    expect(withAgentTrailer('fix it\n', 'alice')).toBe('fix it\n\nAgent-Id: alice\n');
    expect(withAgentTrailer('fix it\n\nGit-Blinder-Proposal: pabc\n', 'bob')).toBe(
      'fix it\n\nGit-Blinder-Proposal: pabc\nAgent-Id: bob\n',
    );
  });
  it("drops an Agent-Id the agent wrote in the trailer block, and keeps one written in the body's text", () => {
    expect(withAgentTrailer('hi\n\nAgent-Id: alice', 'mallory')).toBe('hi\n\nAgent-Id: mallory\n');
    expect(withAgentTrailer('hi\n\nagent-id : alice\nSigned-off-by: m <m@x>', 'mallory')).toBe(
      'hi\n\nSigned-off-by: m <m@x>\nAgent-Id: mallory\n',
    );
    expect(withAgentTrailer('Agent-Id: alice', 'mallory')).toBe('Agent-Id: alice\n\nAgent-Id: mallory\n');
  });
  it('names the agent and the perimeter in the author, never a label', () => {
    expect(agentAuthor('alice', 'app')).toEqual({
      name: 'alice@app via git-blinder',
      email: 'alice@app.git-blinder.invalid',
    });
  });
});
