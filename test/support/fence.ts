// Answers fence untrusted text with a nonce drawn per answer (src/registry/render.ts): tests that compare two answers
// byte for byte number the fences first.

/**
 * The text with each untrusted-text fence (a random nonce per answer, src/registry/render.ts) replaced by its order of
 * first appearance: two answers compare equal when their fences sit in the same places, whatever the nonces drawn.
 */
export function unfence(text: string): string {
  const seen = new Map<string, string>();
  return text.replace(/(<\/?untrusted-)([0-9a-f]{16,})>/g, (_m, tag: string, nonce: string) => {
    let label = seen.get(nonce);
    if (label === undefined) seen.set(nonce, (label = `fence${seen.size + 1}`));
    return `${tag}${label}>`;
  });
}
