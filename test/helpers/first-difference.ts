/** The first line where a generated text and the committed file differ, for a failure message a person can act on. */
export function firstDifference(generated: string, committed: string): string {
  const left = generated.split('\n');
  const right = committed.split('\n');
  const i = left.findIndex((line, n) => line !== right[n]);
  const at = i === -1 ? left.length : i;
  return `line ${at + 1}:\n  committed: ${right[at] ?? '(end of file)'}\n  generated: ${left[at] ?? '(end of file)'}`;
}
