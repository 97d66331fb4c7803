/** The next step for a perimeter that has no agent key yet: the one command that issues one (printed by `serve` and `perimeter create`). */
export function keyHint(id: string): string {
  return `perimeter ${id} has no agent key yet (agents are refused until one is issued): git-blinder perimeter key issue ${id}`;
}
