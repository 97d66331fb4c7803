/** Outcome of a fallible pure function: a value, or a code and a message meant for a person. */
export type Result<T, C extends string = string> = { ok: true; value: T } | { ok: false; code: C; message: string };

/** Builds a success. */
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Builds a failure. */
export const fail = <C extends string>(code: C, message: string): { ok: false; code: C; message: string } => ({
  ok: false,
  code,
  message,
});

/** Exhaustiveness guard for `switch` over a closed union. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
